// The change feed (`/v1/changes`, GraphQL `changes`): what a reader with a given key can see that
// changed since its cursor, each record once per page in its latest state — an upsert (its REST read
// form now) or a tombstone (deleted, or no longer visible to this key: an unpublished post for a
// public key).
//
// Two phases. Without a cursor the feed first lists every record visible now, type by type in id
// order (a snapshot), having noted the log's head when it began; then it follows the change log from
// that head, so nothing written meanwhile is missed. With a cursor it follows the log.
//
// A record's read form also changes when a record it embeds or counts changes, which has no event of
// its own for it; the feed adds those records to the page of the event that changed them:
// - a category, tag or author changed: every post linked to it now (their embedded copy). Deleting a
//   tag or an author unlinks its posts, and the delete names each as a changed post itself
//   (taxonomy.ts, authors.ts), so those arrive as events.
// - a post changed: its category, tags and authors (their published-post counts), as its event shows
//   them now and as its previous event showed them before (the ones it left). A post whose previous
//   event is older than the log's retention may leave a count stale in a mirror until that record
//   changes again (said in the README).

import type { PrismaClient } from "../generated/prisma/client.ts";
import { currentSnapshot, type FeedResource } from "./event-snapshots.ts";
import { isLive, liveWhere } from "./post-visibility.ts";

export const FEED_RESOURCES: readonly FeedResource[] = ["post", "category", "tag", "author"];

export type FeedPosition =
  /** Listing what is visible now: the log's head when it began, the type reached, the last id given. */
  | { phase: "snapshot"; head: bigint; typeIndex: number; afterId: string | null }
  /** Following the log after this position. */
  | { phase: "log"; position: bigint };

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
  from: FeedPosition | null;
  /** Records per snapshot page; events per log page (a page may add records they imply). */
  limit: number;
}

export async function readChanges(prisma: PrismaClient, request: FeedRequest): Promise<FeedPage> {
  const from = request.from ?? {
    phase: "snapshot",
    head: await logHead(prisma),
    typeIndex: 0,
    afterId: null,
  };
  return from.phase === "snapshot"
    ? snapshotPage(prisma, request, from)
    : logPage(prisma, request, from.position);
}

async function logHead(prisma: PrismaClient): Promise<bigint> {
  const newest = await prisma.event.findFirst({ orderBy: { position: "desc" }, select: { position: true } });
  return newest?.position ?? 0n;
}

async function snapshotPage(
  prisma: PrismaClient,
  request: FeedRequest,
  from: Extract<FeedPosition, { phase: "snapshot" }>,
): Promise<FeedPage> {
  const types = FEED_RESOURCES.filter((type) => request.types.includes(type));
  const entries: FeedEntry[] = [];
  let at: FeedPosition = from;
  // Type after type until the page is full or the snapshot is done.
  while (at.phase === "snapshot" && entries.length < request.limit) {
    const type = types[at.typeIndex];
    if (type === undefined) {
      at = { phase: "log", position: at.head };
      break;
    }
    const wanted = request.limit - entries.length;
    const ids = await visibleIds(prisma, request, type, at.afterId, wanted);
    for (const id of ids) {
      const data = await currentSnapshot(prisma, type, id);
      if (data && visible(request, type, data)) entries.push({ op: "upsert", type, id, data });
    }
    const last = ids.at(-1);
    at =
      ids.length === wanted && last !== undefined
        ? { ...at, afterId: last }
        : at.typeIndex + 1 < types.length
          ? { phase: "snapshot", head: at.head, typeIndex: at.typeIndex + 1, afterId: null }
          : { phase: "log", position: at.head };
  }
  // The log after the snapshot may hold changes: the client reads on until hasMore is false.
  const hasMore = at.phase === "snapshot" || (await eventsAfter(prisma, request, at.position));
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
    where: { workspaceId: request.workspaceId, position: { gt: position }, OR: typeFilter(FEED_RESOURCES) },
    select: { id: true },
  });
  return found !== null;
}

function typeFilter(types: readonly FeedResource[]) {
  return types.map((type) => ({ type: { startsWith: `${type}.` } }));
}

interface Implied {
  type: FeedResource;
  id: string;
  /** The event that made the record part of this page: its position orders the entry, its time dates a tombstone. */
  at: { position: bigint; createdAt: Date };
  slug: string | null;
}

async function logPage(prisma: PrismaClient, request: FeedRequest, after: bigint): Promise<FeedPage> {
  // Every resource's events, whatever `types` asks for: a tag's rename changes posts too.
  const events = await prisma.event.findMany({
    where: { workspaceId: request.workspaceId, position: { gt: after }, OR: typeFilter(FEED_RESOURCES) },
    orderBy: { position: "asc" },
    take: request.limit + 1,
  });
  const page = events.slice(0, request.limit);
  const last = page.at(-1);
  const next: FeedPosition = { phase: "log", position: last?.position ?? after };
  if (page.length === 0) return { entries: [], next, hasMore: false };

  const implied = new Map<string, Implied>();
  const imply = (item: Implied) => {
    implied.delete(`${item.type}:${item.id}`);
    implied.set(`${item.type}:${item.id}`, item);
  };
  const postIds = page.filter((event) => resourceOf(event.type) === "post").map((event) => event.resourceId);
  const previous = await previousPostEvents(prisma, request.workspaceId, postIds, after);
  for (const event of page) {
    const type = resourceOf(event.type);
    if (!type) continue;
    const at = { position: event.position, createdAt: event.createdAt };
    imply({ type, id: event.resourceId, at, slug: event.slug });
    if (type === "post") {
      for (const data of [previous.get(event.resourceId), event.data])
        for (const related of relatedOfPost(data)) imply({ ...related, at, slug: null });
      previous.set(event.resourceId, event.data);
    } else {
      for (const postId of await linkedPosts(prisma, type, event.resourceId))
        imply({ type: "post", id: postId, at, slug: null });
    }
  }

  const entries: FeedEntry[] = [];
  for (const item of implied.values()) {
    if (!request.types.includes(item.type)) continue;
    const data = await currentSnapshot(prisma, item.type, item.id);
    if (data && visible(request, item.type, data))
      entries.push({ op: "upsert", type: item.type, id: item.id, data });
    else
      entries.push({
        op: "delete",
        type: item.type,
        id: item.id,
        // A post that still exists but is hidden from this key keeps its slug to itself.
        slug: data ? null : item.slug,
        removedAt: item.at.createdAt,
      });
  }
  return { entries, next, hasMore: events.length > request.limit };
}

function resourceOf(type: string): FeedResource | null {
  const resource = type.slice(0, type.indexOf("."));
  return (FEED_RESOURCES as readonly string[]).includes(resource) ? (resource as FeedResource) : null;
}

function visible(request: FeedRequest, type: FeedResource, data: Record<string, unknown>): boolean {
  return type !== "post" || !request.publicOnly || isLive(data, new Date());
}

/** Each post's newest event at or before `position`: its read form before this page's changes. */
async function previousPostEvents(
  prisma: PrismaClient,
  workspaceId: string,
  postIds: string[],
  position: bigint,
): Promise<Map<string, unknown>> {
  if (postIds.length === 0) return new Map();
  const rows = await prisma.event.findMany({
    where: {
      workspaceId,
      resourceId: { in: [...new Set(postIds)] },
      position: { lte: position },
      type: { startsWith: "post." },
    },
    orderBy: [{ resourceId: "asc" }, { position: "desc" }],
    distinct: ["resourceId"],
    select: { resourceId: true, data: true },
  });
  return new Map(rows.map((row) => [row.resourceId, row.data]));
}

/** The category, tags and authors a post's read form names. */
function relatedOfPost(data: unknown): { type: FeedResource; id: string }[] {
  if (!data || typeof data !== "object") return [];
  const post = data as { category?: { id?: unknown } | null; tags?: unknown; authors?: unknown };
  const related: { type: FeedResource; id: string }[] = [];
  if (typeof post.category?.id === "string") related.push({ type: "category", id: post.category.id });
  for (const [type, list] of [
    ["tag", post.tags],
    ["author", post.authors],
  ] as const)
    if (Array.isArray(list))
      for (const item of list)
        if (typeof (item as { id?: unknown })?.id === "string")
          related.push({ type, id: (item as { id: string }).id });
  return related;
}

/** Posts linked to a category, tag or author now. */
async function linkedPosts(
  prisma: PrismaClient,
  type: Exclude<FeedResource, "post">,
  id: string,
): Promise<string[]> {
  const rows =
    type === "category"
      ? await prisma.post.findMany({ where: { categoryId: id }, select: { id: true } })
      : type === "tag"
        ? await prisma.postTag
            .findMany({ where: { tagId: id }, select: { postId: true } })
            .then((r) => r.map((x) => ({ id: x.postId })))
        : await prisma.postAuthor
            .findMany({ where: { authorId: id }, select: { postId: true } })
            .then((r) => r.map((x) => ({ id: x.postId })));
  return rows.map((row) => row.id);
}
