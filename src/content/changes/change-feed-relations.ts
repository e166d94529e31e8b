// What ties the change feed's records together (change-feed-log.ts): the category, tags and authors a
// post's read form names, the posts linked to a category, tag or author now, and each post's read form
// before a point of the log (its newest event there).
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { formsIn } from "./event-locales.ts";
import type { FeedResource } from "./event-snapshots.ts";

/**
 * Each post's newest event at or before `position` that carries its form in `locale`: its read form
 * there before the events after it.
 */
export async function previousPostForms(
  prisma: PrismaClient,
  workspaceId: string,
  postIds: string[],
  position: bigint,
  locale: { code: string; isDefault: boolean },
): Promise<Map<string, Record<string, unknown>>> {
  if (postIds.length === 0) return new Map();
  const rows = await prisma.event.findMany({
    where: {
      workspaceId,
      resourceId: { in: [...new Set(postIds)] },
      position: { lte: position },
      type: { startsWith: "post." },
      ...formsIn(locale),
    },
    orderBy: [{ resourceId: "asc" }, { position: "desc" }],
    distinct: ["resourceId"],
    select: { resourceId: true, data: true },
  });
  return new Map(rows.map((row) => [row.resourceId, row.data as Record<string, unknown>]));
}

/** The category, tags and authors a post's read form names, in that order. */
export function relatedOfPost(data: unknown): { type: FeedResource; id: string }[] {
  const post = (data ?? {}) as { category?: unknown; tags?: unknown; authors?: unknown };
  return [
    ...idsOf("category", [post.category]),
    ...idsOf("tag", post.tags),
    ...idsOf("author", post.authors),
  ];
}

/** The `id`s of the records a read form embeds (a list of them, or one), as feed records of `type`. */
function idsOf(type: FeedResource, records: unknown): { type: FeedResource; id: string }[] {
  if (!Array.isArray(records)) return [];
  return records
    .map((record) => (record as { id?: unknown } | null)?.id)
    .filter((id): id is string => typeof id === "string")
    .map((id) => ({ type, id }));
}

/** Up to `limit` posts linked to a category, tag or author now, by id, after `afterId`. */
export async function linkedPostsAfter(
  prisma: PrismaClient,
  type: Exclude<FeedResource, "post">,
  id: string,
  afterId: string | null,
  limit: number,
): Promise<string[]> {
  const after = afterId === null ? {} : { gt: afterId };
  if (type === "category") {
    const rows = await prisma.post.findMany({
      where: { categoryId: id, ...(afterId === null ? {} : { id: after }) },
      orderBy: { id: "asc" },
      take: limit,
      select: { id: true },
    });
    return rows.map((row) => row.id);
  }
  const page = {
    where: { ...(afterId === null ? {} : { postId: after }) },
    orderBy: { postId: "asc" as const },
    take: limit,
    select: { postId: true },
  };
  const rows =
    type === "tag"
      ? await prisma.postTag.findMany({ ...page, where: { ...page.where, tagId: id } })
      : await prisma.postAuthor.findMany({ ...page, where: { ...page.where, authorId: id } });
  return rows.map((row) => row.postId);
}
