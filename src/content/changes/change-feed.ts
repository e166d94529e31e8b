// The change feed (`/v1/changes`, GraphQL `changes`): what a reader with a given key can see that
// changed since its cursor, each record once per page in its latest state — an upsert (its REST read
// form now) or a tombstone (deleted, or no longer visible to this key: an unpublished post for a
// public key).
//
// Two phases. Without a cursor the feed first lists every record visible now, type by type in id
// order (a snapshot), having noted the workspace's newest event when it began; then it follows the
// change log from that event, so nothing written meanwhile is missed. With a cursor it follows the log
// (change-feed-log.ts).
//
// A point of the log is named by an event of the workspace (its id), never by the log's global
// position: positions count every workspace's writes, and a cursor a key holds must say nothing of
// other tenants. The id is looked up again on each read; one no longer there (pruned by retention) reads
// the workspace's retained log from its start, which repeats changes but misses none.
//
// A record's read form also changes when a record it embeds or counts changes, which has no event of
// its own for it; the feed adds those records after the event that changed them (an event "implies"
// them), and a page stops after `limit` records even inside one event's list:
// - a category, tag or author changed: every post linked to it now (their embedded copy). Deleting a
//   tag or an author unlinks its posts, and the delete names each as a changed post itself
//   (taxonomy.ts, authors.ts), so those arrive as events.
// - a post changed: its category, tags and authors (their published-post counts), as its event shows
//   them now and as its previous event showed them before (the ones it left). A post whose previous
//   event is older than the log's retention may leave a count stale in a mirror until that record
//   changes again (said in docs/api.md, "Delta sync").

import type { PrismaClient } from "../../generated/prisma/client.ts";
import { liveTranslationWhere, liveWhere } from "../post-visibility.ts";
import { logPage } from "./change-feed-log.ts";
import {
  FEED_RESOURCES,
  type FeedEntry,
  type FeedPage,
  type FeedPosition,
  type FeedRequest,
  feedEvents,
  type GlobalPosition,
  visible,
} from "./change-feed-model.ts";
import { currentSnapshot, type FeedResource } from "./event-snapshots.ts";

export {
  type EventProgress,
  FEED_RESOURCES,
  type FeedPosition,
  type GlobalPosition,
} from "./change-feed-model.ts";

export async function readChanges(prisma: PrismaClient, request: FeedRequest): Promise<FeedPage> {
  const from = request.from ?? {
    phase: "snapshot",
    head: await newestEventId(prisma, request.workspaceId),
    typeIndex: 0,
    afterId: null,
  };
  if (from.phase === "position")
    return readChanges(prisma, { ...request, from: await byEvent(prisma, request, from) });
  if (from.phase === "snapshot") return snapshotPage(prisma, request, from);
  const at = await positionOf(prisma, request.workspaceId, from.eventId);
  // An event gone from the log cannot be resumed inside: read its workspace's retained log again.
  return logPage(prisma, request, { ...at, progress: at.found ? from.progress : null });
}

/** The feed's position at the workspace's head: nothing before now, everything after (`since=latest`). */
export async function feedHead(prisma: PrismaClient, workspaceId: string): Promise<FeedPosition> {
  return { phase: "log", eventId: await newestEventId(prisma, workspaceId), progress: null };
}

/** An earlier format's position as the same point named by the workspace's own event. */
async function byEvent(
  prisma: PrismaClient,
  request: FeedRequest,
  from: GlobalPosition,
): Promise<FeedPosition> {
  const newest = await prisma.event.findFirst({
    where: { workspaceId: request.workspaceId, position: { lte: from.position } },
    orderBy: { position: "desc" },
    select: { id: true },
  });
  const eventId = newest?.id ?? null;
  return from.snapshot
    ? { phase: "snapshot", head: eventId, ...from.snapshot }
    : { phase: "log", eventId, progress: null };
}

async function newestEventId(prisma: PrismaClient, workspaceId: string): Promise<string | null> {
  const newest = await prisma.event.findFirst({
    where: { workspaceId },
    orderBy: { position: "desc" },
    select: { id: true },
  });
  return newest?.id ?? null;
}

/** The global position of a workspace's event, kept inside the service; 0 (the start) when it is gone. */
export async function positionOf(
  prisma: PrismaClient,
  workspaceId: string,
  eventId: string | null,
): Promise<{ eventId: string | null; position: bigint; found: boolean }> {
  if (eventId === null) return { eventId, position: 0n, found: true };
  const event = await prisma.event.findFirst({
    where: { id: eventId, workspaceId },
    select: { position: true },
  });
  return event
    ? { eventId, position: event.position, found: true }
    : { eventId: null, position: 0n, found: false };
}

async function snapshotPage(
  prisma: PrismaClient,
  request: FeedRequest,
  from: Extract<FeedPosition, { phase: "snapshot" }>,
): Promise<FeedPage> {
  const types = FEED_RESOURCES.filter((type) => request.types.includes(type));
  const entries: FeedEntry[] = [];
  let at: FeedPosition = from;
  const logFrom = (head: string | null): FeedPosition => ({ phase: "log", eventId: head, progress: null });
  // Type after type until the page is full or the snapshot is done.
  while (at.phase === "snapshot" && entries.length < request.limit) {
    const type = types[at.typeIndex];
    if (type === undefined) {
      at = logFrom(at.head);
      break;
    }
    const wanted = request.limit - entries.length;
    const ids = await visibleIds(prisma, request, type, at.afterId, wanted);
    for (const id of ids) {
      const data = await currentSnapshot(prisma, type, id, request.locale);
      if (data && visible(request, type, data)) entries.push({ op: "upsert", type, id, data });
    }
    const last = ids.at(-1);
    at =
      ids.length === wanted && last !== undefined
        ? { ...at, afterId: last }
        : at.typeIndex + 1 < types.length
          ? { phase: "snapshot", head: at.head, typeIndex: at.typeIndex + 1, afterId: null }
          : logFrom(at.head);
  }
  // The log after the snapshot may hold changes: the client reads on until hasMore is false.
  const hasMore =
    at.phase === "snapshot" ||
    (await eventsAfter(
      prisma,
      request,
      (
        await positionOf(prisma, request.workspaceId, at.eventId)
      ).position,
    ));
  return { entries, next: at, hasMore };
}

async function visibleIds(
  prisma: PrismaClient,
  request: FeedRequest,
  type: FeedResource,
  afterId: string | null,
  limit: number,
): Promise<string[]> {
  const where = { workspaceId: request.workspaceId, ...(afterId ? { id: { gt: afterId } } : {}) };
  const page = { where, orderBy: { id: "asc" as const }, take: limit, select: { id: true } };
  // Another locale's posts: those with a translation in it (a public key: a live one).
  if (type === "post" && !request.locale.isDefault) {
    const translations = await prisma.postTranslation.findMany({
      where: {
        workspaceId: request.workspaceId,
        locale: request.locale.code,
        ...(afterId ? { postId: { gt: afterId } } : {}),
        ...(request.publicOnly ? liveTranslationWhere(new Date()) : {}),
      },
      orderBy: { postId: "asc" },
      take: limit,
      select: { postId: true },
    });
    return translations.map((row) => row.postId);
  }
  const rows =
    type === "post"
      ? await prisma.post.findMany({
          ...page,
          where: { ...where, ...(request.publicOnly ? liveWhere(new Date()) : {}) },
        })
      : type === "category"
        ? await prisma.category.findMany(page)
        : type === "tag"
          ? await prisma.tag.findMany(page)
          : await prisma.author.findMany(page);
  return rows.map((row) => row.id);
}

async function eventsAfter(prisma: PrismaClient, request: FeedRequest, position: bigint): Promise<boolean> {
  const found = await prisma.event.findFirst({
    // Any resource's: a tag's rename changes posts too.
    where: { workspaceId: request.workspaceId, position: { gt: position }, ...feedEvents(request) },
    select: { id: true },
  });
  return found !== null;
}
