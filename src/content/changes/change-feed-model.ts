// The change feed's vocabulary (change-feed.ts reads pages, change-feed-log.ts the log's): its
// positions, entries and pages, the resources it serves, which events it follows and what a key sees.

import { isLive } from "../post-visibility.ts";
import { eventsConcerning } from "./event-locales.ts";
import type { FeedResource } from "./event-snapshots.ts";

export const FEED_RESOURCES: readonly FeedResource[] = ["post", "category", "tag", "author"];

/** How far the records one event implies were served: the first `items` of its own list (the record
 * itself and, for a post, its category, tags and authors), and the posts linked to it up to `afterPostId`. */
export interface EventProgress {
  items: number;
  afterPostId: string | null;
}

export type FeedPosition =
  /** Listing what is visible now: the workspace's newest event when it began (null: none yet), the type reached, the last id given. */
  | { phase: "snapshot"; head: string | null; typeIndex: number; afterId: string | null }
  /** Following the log: after `eventId` (null: from the start), or inside it when `progress` is set. */
  | { phase: "log"; eventId: string | null; progress: EventProgress | null };

/**
 * A cursor of the earlier format, which held the log's global position: read on from the workspace's
 * newest event at or before it (listing still, with `snapshot`). Read, never issued any more.
 */
export interface GlobalPosition {
  phase: "position";
  position: bigint;
  snapshot: { typeIndex: number; afterId: string | null } | null;
}

export type FeedEntry =
  | { op: "upsert"; type: FeedResource; id: string; data: Record<string, unknown> }
  | { op: "delete"; type: FeedResource; id: string; slug: string | null; removedAt: Date };

export interface FeedPage {
  entries: FeedEntry[];
  next: FeedPosition;
  hasMore: boolean;
}

export interface FeedRequest {
  workspaceId: string;
  /** Public keys see published posts only. */
  publicOnly: boolean;
  types: readonly FeedResource[];
  from: FeedPosition | GlobalPosition | null;
  /** Entries per page, at most: a page may stop inside the records one event implies. */
  limit: number;
  /**
   * The locale whose posts the feed serves (issue 56): each post as that translation shows it, from the
   * events that concern it (event-locales.ts). `named`: asked for, so a post's data names it; without,
   * the default locale's, each post as before.
   */
  locale: FeedLocale;
}

/** A feed's locale: its code, whether it is the workspace's default, whether the request named it. */
export interface FeedLocale {
  code: string;
  isDefault: boolean;
  named: boolean;
}

/**
 * The events the feed follows: every feed resource's, whatever `types` asks for (a tag's rename changes
 * posts too), those of posts only when they concern the feed's locale (for a public key, a public
 * translation of it: a draft translation's edits are none of its business, not even as their timing).
 */
export function feedEvents(request: FeedRequest) {
  return {
    OR: FEED_RESOURCES.map((type) => ({ type: { startsWith: `${type}.` } })),
    AND: [eventsConcerning(request.locale.code, request.publicOnly)],
  };
}

export function visible(request: FeedRequest, type: FeedResource, data: Record<string, unknown>): boolean {
  return type !== "post" || !request.publicOnly || isLive(data, new Date());
}
