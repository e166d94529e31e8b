// The post list filters of the contract as a SQL condition on `"Post" p`: the same rules as
// postListWhere (post-filters.ts), for the post read model's page query (src/graphql/read-model/post-rows.ts
// `readPostPage`: the count, the page's ids and its rows in one statement), which would otherwise need two
// Prisma calls (count and page ids) before its own. test/graphql/post-list-sql.test.ts checks that both
// select the same posts for every filter.

import { statusCondition } from "../post-visibility.ts";
import type { PostListFilter } from "./post-filters.ts";

/** Positional parameters of one statement: `add` returns the placeholder of the value. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The posts a list's filters match: `condition` on `"Post" p`, and for the public list `count`, what
 * counts them faster (liveCountSql in post-visibility.ts): their number is count(released) −
 * count(withdrawn), each a condition on `"Post" p` with the same placeholders.
 */
export interface PostListSql {
  condition: string;
  count: { released: string; withdrawn: string } | null;
}

export function postListCondition(workspaceId: string, filter: PostListFilter, params: SqlParams): string {
  return postListSql(workspaceId, filter, params).condition;
}

export function postListSql(workspaceId: string, filter: PostListFilter, params: SqlParams): PostListSql {
  const workspace = params.add(workspaceId);
  const status = statusCondition(filter.status, filter.now, params);
  const filters = filterConditions(workspace, filter, params);
  // The workspace, then the status, then the other filters, in all three texts.
  const where = (...statusConditions: string[]) =>
    [`p."workspaceId" = ${workspace}`, ...statusConditions, ...filters].join(" AND ");
  const { count } = status;
  return {
    condition: status.condition ? where(status.condition) : where(),
    count: count
      ? { released: where(count.released), withdrawn: where(count.released, count.withdrawn) }
      : null,
  };
}

/** The filters other than the workspace and the status, each a condition on `"Post" p`. */
function filterConditions(workspace: string, filter: PostListFilter, params: SqlParams): string[] {
  const and: string[] = [];
  if (filter.featured !== null && filter.featured !== undefined)
    and.push(`p.featured = ${params.add(filter.featured)}`);
  // Filters as arrays of ids computed first (InitPlans), then matched through an index: whatever plan
  // the prepared statement settles on (a generic one too), the taxonomy is looked up by its
  // (workspaceId, slug) index — naming the workspace, so other workspaces' rows are never read — the
  // tagged posts by PostTag(tagId) and the posts by id, so the work follows the tagged posts, not the
  // PostTag table. A correlated EXISTS or a plain IN let the generic plan hash the whole PostTag table
  // (issue 18).
  const categoryIds = (slugs: readonly string[]) =>
    `ARRAY(SELECT c.id FROM "Category" c WHERE c."workspaceId" = ${workspace} AND c.slug = ANY(${params.add([...slugs])}::text[]))`;
  if (filter.categories?.length) and.push(`p."categoryId" = ANY(${categoryIds(filter.categories)})`);
  if (filter.excludeCategories?.length)
    and.push(`p."categoryId" NOT IN (SELECT unnest(${categoryIds(filter.excludeCategories)}))`);
  const taggedPosts = (slugs: readonly string[]) =>
    `SELECT pt."postId" FROM "PostTag" pt
      WHERE pt."tagId" = ANY(ARRAY(SELECT t.id FROM "Tag" t
                                    WHERE t."workspaceId" = ${workspace} AND t.slug = ANY(${params.add([...slugs])}::text[])))`;
  if (filter.tags?.length) and.push(`p.id = ANY(ARRAY(${taggedPosts(filter.tags)}))`);
  // Excluding has to look at every listed post anyway: one hash of the excluded ids, built from the index.
  if (filter.excludeTags?.length) and.push(`p.id NOT IN (${taggedPosts(filter.excludeTags)})`);
  if (filter.matchingIds) and.push(`p.id = ANY(${params.add([...filter.matchingIds])}::text[])`);
  return and;
}

/**
 * The order of a post list: by publishedAt (ties by id, as Prisma's order in post-list.ts), or by the
 * position in `rankedIds` (best search match first), joined as a table rather than looked up per row.
 */
export function postListOrder(
  order: { by: "publishedAt"; direction: "asc" | "desc" } | { by: "rank"; rankedIds: readonly string[] },
  params: SqlParams,
): { join: string; orderBy: string } {
  if (order.by === "rank") {
    const ranked = params.add([...order.rankedIds]);
    return {
      join: `JOIN unnest(${ranked}::text[]) WITH ORDINALITY AS ranked(id, rank) ON ranked.id = p.id`,
      orderBy: "ranked.rank",
    };
  }
  return { join: "", orderBy: `p."publishedAt" ${order.direction === "asc" ? "ASC" : "DESC"}, p.id ASC` };
}

/** Where a page's count and ids come from when not from `"Post" p` (tagListing). */
export interface PostListing {
  from: string;
  where: string;
  /** The post id column of `from`. */
  id: string;
  orderBy: string;
}

/**
 * A public tag page (one tag, no other filter, by date) from the tag's links alone: PostTag's
 * `listedAt` is its post's publication date while published (kept by triggers: migration
 * 20261126103000_post_tag_listed_at), so `listedAt <= now` is the public rule and its index gives the
 * count and the page in order, without looking each tagged post up (issue 39: on 500 tagged posts the
 * lookups were most of PostgreSQL's work for the page). Null for any other list, which keeps
 * postListCondition. The ties by post id, as postListOrder's.
 */
export function tagListing(
  workspaceId: string,
  filter: PostListFilter,
  direction: "asc" | "desc",
  params: SqlParams,
): PostListing | null {
  const [tag, ...more] = filter.tags ?? [];
  const onlyTheTag =
    filter.status === "published" &&
    tag !== undefined &&
    more.length === 0 &&
    !filter.categories?.length &&
    !filter.excludeCategories?.length &&
    !filter.excludeTags?.length &&
    (filter.featured === null || filter.featured === undefined) &&
    !filter.matchingIds;
  if (!onlyTheTag) return null;
  const tagId = `(SELECT t.id FROM "Tag" t WHERE t."workspaceId" = ${params.add(workspaceId)} AND t.slug = ${params.add(tag)})`;
  const at = `(${params.add(filter.now.toISOString())}::timestamptz AT TIME ZONE 'UTC')`;
  return {
    from: `"PostTag" pt`,
    where: `pt."tagId" = ${tagId} AND pt."listedAt" <= ${at}`,
    id: `pt."postId"`,
    orderBy: `pt."listedAt" ${direction === "asc" ? "ASC" : "DESC"}, pt."postId" ASC`,
  };
}
