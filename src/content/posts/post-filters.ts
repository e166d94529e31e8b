// The post list filters of the contract, as one Prisma `where`.
//
// Why a second form exists (post-list-sql.ts, the same rules as a SQL condition): plugin-prisma plans a
// list's nested selection (authors, tags, category …) into one Prisma query, and Prisma takes only its
// own `where` — it has no raw SQL conditions — so every list that plugin-prisma reads (the cursor
// connection, taxonomies' post pages, selections other than the read form) needs this form; the post
// read model's page query (count and ids in one raw statement) needs the SQL one. Building the Prisma
// query from the SQL ids instead would cost one more statement per list. test/graphql/post-list-sql.test.ts
// proves that both forms select the same posts in the same order for every filter.
import type { Prisma } from "../../generated/prisma/client.ts";
import { type PostStatusFilter, statusWhere } from "../post-visibility.ts";

export type { PostStatusFilter } from "../post-visibility.ts";

export interface PostListFilter {
  status: PostStatusFilter;
  categories?: readonly string[] | null;
  excludeCategories?: readonly string[] | null;
  tags?: readonly string[] | null;
  excludeTags?: readonly string[] | null;
  featured?: boolean | null;
  /** Ids from full-text search, when a `query` was given. */
  matchingIds?: readonly string[] | null;
  /** The moment that decides which posts are public yet (post-visibility.ts); one per request. */
  now: Date;
}

export function postListWhere(workspaceId: string, filter: PostListFilter): Prisma.PostWhereInput {
  const and: Prisma.PostWhereInput[] = [];
  // Every taxonomy lookup names the workspace, so the (workspaceId, slug) indexes serve it.
  const bySlugs = (slugs: readonly string[]) => ({ workspaceId, slug: { in: [...slugs] } });
  if (filter.categories?.length) and.push({ category: bySlugs(filter.categories) });
  if (filter.excludeCategories?.length) and.push({ NOT: { category: bySlugs(filter.excludeCategories) } });
  if (filter.tags?.length) and.push({ tags: { some: { tag: bySlugs(filter.tags) } } });
  if (filter.excludeTags?.length) and.push({ tags: { none: { tag: bySlugs(filter.excludeTags) } } });
  if (filter.matchingIds) and.push({ id: { in: [...filter.matchingIds] } });
  // The status rule inside the AND list: its own AND (post-visibility.ts) would be overwritten beside it.
  const status = statusWhere(filter.status, filter.now);
  if (Object.keys(status).length) and.unshift(status);
  return {
    workspaceId,
    ...(filter.featured === null || filter.featured === undefined ? {} : { featured: filter.featured }),
    ...(and.length ? { AND: and } : {}),
  };
}
