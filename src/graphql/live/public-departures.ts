// A public subscriber's post departures (post.unpublished, post.deleted), checked against the post's
// history before they are sent: the subscription's filter (schema/subscription.ts) already reduced
// them to an id and slug, but only the change log knows whether the post was ever public. One that
// never was (a draft, a scheduled post) is dropped; one that was keeps the slug it was public under
// (content/changes/public-departures.ts, the rule the change feed applies too).
//
// A stage of its own around the stream's iterator, because the filter runs synchronously inside the
// stream's reader and this needs a read of the log; only departures, which are rare, make that read.

import { formsIn } from "../../content/changes/event-locales.ts";
import {
  type FormBefore,
  liveThrough,
  NEVER_PUBLIC,
  publicTombstone,
} from "../../content/changes/public-departures.ts";
import type { Event, PrismaClient } from "../../generated/prisma/client.ts";
import { isStreamEnd, type StreamItem } from "./change-stream.ts";

const DEPARTURES = new Set(["post.unpublished", "post.deleted"]);

/** `events` with each post departure kept only if the post was public before it. */
export function checkPublicDepartures(
  events: AsyncIterableIterator<StreamItem>,
  prisma: PrismaClient,
  /** The locale whose forms of the post tell whether it was public (issue 56). */
  formLocale: (event: Event) => { code: string; isDefault: boolean },
): AsyncIterableIterator<StreamItem> {
  const checked: AsyncIterableIterator<StreamItem> = {
    async next() {
      for (;;) {
        const result = await events.next();
        if (result.done || isStreamEnd(result.value) || !DEPARTURES.has(result.value.type)) return result;
        const departure = await publicDeparture(prisma, result.value, formLocale(result.value));
        if (departure) return { value: departure, done: false };
      }
    },
    // Straight to the source, even while a read waits: ending must not wait for the next event.
    return: () => events.return?.() ?? Promise.resolve({ value: undefined, done: true }),
    throw: (error?: unknown) => events.throw?.(error) ?? Promise.reject(error),
    [Symbol.asyncIterator]: () => checked,
  };
  return checked;
}

async function publicDeparture(
  prisma: PrismaClient,
  event: Event,
  locale: { code: string; isDefault: boolean },
): Promise<Event | null> {
  // The post's form before the write: an unpublish is recorded right after its write's post.updated
  // (consecutive positions, change-log.ts), which already holds the form after; a delete is alone.
  const writeStart = event.type === "post.unpublished" ? event.position - 1n : event.position;
  const previous = await prisma.event.findFirst({
    where: {
      workspaceId: event.workspaceId,
      resourceId: event.resourceId,
      type: { startsWith: "post." },
      position: { lt: writeStart },
      // Its forms in that locale: another translation's slug is not the one it was public under there.
      ...formsIn(locale),
    },
    orderBy: { position: "desc" },
    select: { data: true },
  });
  // No event before it: its earlier ones were pruned (every post has its post.created).
  const before: FormBefore = (previous?.data as Record<string, unknown> | undefined) ?? "unknown";
  const tombstone = publicTombstone(liveThrough(NEVER_PUBLIC, before, event.type, event.createdAt));
  if (!tombstone) return null;
  return { ...event, slug: tombstone.slug, data: { id: event.resourceId, slug: tombstone.slug } };
}
