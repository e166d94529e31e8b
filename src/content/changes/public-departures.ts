// What a public key may learn of a post that leaves its view (unpublished, deleted or hidden): only
// what it could have read. A post that was public gets a tombstone — its id, and the slug it was
// public under; one that never was (a draft, a scheduled post deleted before its time) gets nothing,
// not even its id. The change feed (change-feed-log.ts) and the public subscription
// (src/graphql/schema/subscription.ts) both decide with this rule.
//
// "Was public" is read from the change log: an event's `data` is the post's read form at that event,
// and a form was public until the next event if post-visibility.ts's rule held for it at that moment.
import { isLive } from "../post-visibility.ts";

/**
 * A post's read form before an event: the `data` of its previous event; "none" when the post did not
 * exist yet; "unknown" when its earlier events were pruned (older than the log's retention).
 */
export type FormBefore = Record<string, unknown> | "none" | "unknown";

/** A tombstone a public key may see: the slug is null when it was public under no known slug. */
export interface PublicTombstone {
  slug: string | null;
}

/** What the post's history so far says of its public life. */
export interface PublicLife {
  /** The slug of its last public form; undefined while it was never (known to be) public. */
  publicSlug: string | null | undefined;
  /** Its forms before some event are gone: it may have been public. */
  unknown: boolean;
}

export const NEVER_PUBLIC: PublicLife = { publicSlug: undefined, unknown: false };

/**
 * The life of a post after one more event: `before` is its form before the event, `eventType` and
 * `at` the event's. post.unpublished itself says the post was public just before (the writer records
 * it only then, src/content/changes/change-log.ts).
 */
export function liveThrough(life: PublicLife, before: FormBefore, eventType: string, at: Date): PublicLife {
  const known = before === "unknown" ? { ...life, unknown: true } : life;
  if (typeof before === "object" && isLive(before, at)) return { ...known, publicSlug: slugOf(before) };
  if (eventType === "post.unpublished") return { ...known, publicSlug: known.publicSlug ?? null };
  return known;
}

/**
 * The tombstone a public key gets for a post that is gone from its view, or null for nothing at all.
 * A post whose earlier forms were pruned may have been public: it gets its id (no slug), so that a
 * mirror does not keep a page up forever; what it says of a post never public is an id, never a slug.
 */
export function publicTombstone(life: PublicLife): PublicTombstone | null {
  if (life.publicSlug !== undefined) return { slug: life.publicSlug };
  return life.unknown ? { slug: null } : null;
}

function slugOf(form: Record<string, unknown>): string | null {
  return typeof form.slug === "string" ? form.slug : null;
}
