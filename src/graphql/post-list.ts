// The page-based post list: filters, the full-text `query`, and the two orders it offers (by
// publishedAt, or by search rank when a `query` is given without an explicit `order`).
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import { type PostListFilter, type PostStatusFilter, postListWhere } from "../content/post-filters.ts";
import { searchPostIds } from "../content/post-search.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { assertCanReadDrafts, type GraphQLContext } from "./context.ts";
import { type PageArgs, type Pagination, pageWindow, paginate } from "./pagination.ts";

export interface PostListArgs extends Omit<PostListFilter, "matchingIds" | "status"> {
  status?: PostStatusFilter | null;
  query?: string | null;
  order?: "asc" | "desc" | null;
}

export interface PostListWhere {
  where: Prisma.PostWhereInput;
  /** Ids matching the full-text `query`, best match first; null without a query. */
  rankedIds: string[] | null;
}

/** The Prisma `where` of a post list; drafts need a private key. */
export async function postListQuery(ctx: GraphQLContext, args: PostListArgs): Promise<PostListWhere> {
  const status = args.status ?? "published";
  if (status !== "published") assertCanReadDrafts(ctx);
  const text = args.query?.trim();
  const rankedIds = text ? await searchPostIds(ctx.services.sql, ctx.caller.workspaceId, text) : null;
  return {
    where: postListWhere(ctx.caller.workspaceId, { ...args, status, matchingIds: rankedIds }),
    rankedIds,
  };
}

export function publishedAtOrder(
  order: "asc" | "desc" | null | undefined,
): Prisma.PostOrderByWithRelationInput[] {
  return [{ publishedAt: order ?? "desc" }, { id: "asc" }];
}

/** One page of posts with the selection of `info` (planned by plugin-prisma) and its pagination. */
export async function postPage(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & PageArgs,
): Promise<{ items: unknown[]; pagination: Pagination }> {
  const window = pageWindow(args);
  const { where, rankedIds } = await postListQuery(ctx, args);
  const select = queryFromInfo({ context: ctx, info, path: ["items"] });
  if (rankedIds && !args.order) return rankedPage(ctx, select, where, rankedIds, window);
  const [totalItems, items] = await Promise.all([
    ctx.prisma.post.count({ where }),
    ctx.prisma.post.findMany({
      ...select,
      where,
      orderBy: publishedAtOrder(args.order),
      skip: window.skip,
      take: window.take,
    }),
  ]);
  return { items, pagination: paginate(totalItems, window) };
}

/**
 * Search results, best match first. The search already bounds the matches (SEARCH_MATCH_LIMIT), so
 * the other filters are applied to those ids, which are then ordered by rank and cut into the page.
 */
async function rankedPage(
  ctx: GraphQLContext,
  select: object,
  where: Prisma.PostWhereInput,
  rankedIds: string[],
  window: { limit: number; page: number; skip: number; take: number },
): Promise<{ items: unknown[]; pagination: Pagination }> {
  const rank = new Map(rankedIds.map((id, index) => [id, index]));
  const byRank = (a: string, b: string) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  const matching = rankedIds.length ? await ctx.prisma.post.findMany({ where, select: { id: true } }) : [];
  const ordered = matching.map((row) => row.id).sort(byRank);
  const pagination = paginate(ordered.length, window);
  const pageIds = ordered.slice(window.skip, window.skip + window.take);
  const items = pageIds.length
    ? await ctx.prisma.post.findMany({ ...select, where: { id: { in: pageIds } } })
    : [];
  return { items: items.sort((a, b) => byRank(a.id, b.id)), pagination };
}
