// Which posts are public: the one rule every read of public content applies (who may see past it,
// drafts and scheduled posts, is src/auth/access-rules.ts). A post is public ("live") when its status is
// `published` and its `publishedAt` has come; one with status `published` and a `publishedAt` ahead is
// scheduled, and reads treat it as unpublished until then (private keys can list it as `scheduled`).
// The rule has three forms because the reads have three languages: a Prisma `where` (plugin-prisma's
// lists and counts), a SQL condition on `"Post" p` (the read model's page query) and a check of a
// record already read (an event's copy of a post, a row); all three take the same `now`.
import type { Prisma } from "../generated/prisma/client.ts";

/** A statement's positional parameters (post-list-sql.ts's SqlParams): `add` returns the placeholder. */
interface Params {
  add(value: unknown): string;
}

export type PostStatusFilter = "published" | "scheduled" | "draft" | "all";

/** Public posts as a Prisma `where` on Post. */
export function liveWhere(now: Date): Prisma.PostWhereInput {
  return { status: "published", publishedAt: { lte: now } };
}

/** A status filter as a Prisma `where` on Post (empty for `all`). */
export function statusWhere(status: PostStatusFilter, now: Date): Prisma.PostWhereInput {
  switch (status) {
    case "published":
      return liveWhere(now);
    case "scheduled":
      return { status: "published", publishedAt: { gt: now } };
    case "draft":
      return { status: "draft" };
    case "all":
      return {};
  }
}

/** A status filter as a SQL condition on `"Post" p`, or null for `all`. */
export function statusCondition(status: PostStatusFilter, now: Date, params: Params): string | null {
  if (status === "all") return null;
  if (status === "draft") return `p.status = 'draft'::"PostStatus"`;
  // Prisma keeps UTC in timestamp(3) columns: compare with the same UTC wall time.
  const at = `(${params.add(now.toISOString())}::timestamptz AT TIME ZONE 'UTC')`;
  return status === "published"
    ? `p.status = 'published'::"PostStatus" AND p."publishedAt" <= ${at}`
    : `p.status = 'published'::"PostStatus" AND p."publishedAt" > ${at}`;
}

/** Whether a record read already (a row, an event's copy of a post) is public at `now`. */
export function isLive(post: { status?: unknown; publishedAt?: unknown }, now: Date): boolean {
  if (post.status !== "published") return false;
  const at = post.publishedAt instanceof Date ? post.publishedAt : new Date(String(post.publishedAt));
  return !Number.isNaN(at.getTime()) && at.getTime() <= now.getTime();
}

/** Published but dated ahead: public from its publishedAt on. */
export function isScheduled(post: { status?: unknown; publishedAt?: unknown }, now: Date): boolean {
  return post.status === "published" && !isLive(post, now);
}
