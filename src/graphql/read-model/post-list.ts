// The page-based post list: filters, the full-text `query`, and the two orders it offers (by
// publishedAt, or by search rank when a `query` is given without an explicit `order`).
import type { GraphQLResolveInfo } from "graphql";
import { logHead } from "../../content/changes/change-log.ts";
import {
  type PostListFilter,
  type PostStatusFilter,
  postListWhere,
} from "../../content/posts/post-filters.ts";
import { postListOrder, postListSql, SqlParams, tagListing } from "../../content/posts/post-list-sql.ts";
import { checkSearchText, searchPostIds } from "../../content/posts/post-search.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { assertCanReadDrafts, type GraphQLContext } from "../context.ts";
import { type PageArgs, type PageNumbers, pageWindow, paginate } from "../pagination.ts";
import { planPostItems } from "./post-plans.ts";
import {
  type PlannedPostQuery,
  readModelCovers,
  readModelPays,
  readPostPage,
  readPostRows,
} from "./post-rows.ts";

export interface PostListArgs extends Omit<PostListFilter, "matchingIds" | "status" | "now"> {
  status?: PostStatusFilter | null;
  query?: string | null;
  order?: "asc" | "desc" | null;
}

/** The filter of a post list, after the full-text search if there is one; drafts need a private key. */
async function postListFilter(
  ctx: GraphQLContext,
  args: PostListArgs,
): Promise<{ filter: PostListFilter; rankedIds: string[] | null }> {
  const status = args.status ?? "published";
  if (status !== "published") assertCanReadDrafts(ctx);
  const text = args.query?.trim();
  if (text) checkSearchText(text, ctx.services.config.search);
  // The search is the request's first statement then: the response cache's head must be read no later
  // than it (see AnswerHead in context.ts), so before it, on its own.
  if (text && ctx.answerHead?.head === null)
    ctx.answerHead.head = await logHead(ctx.sql, ctx.caller.workspaceId);
  const rankedIds = text ? await searchPostIds(ctx.sql, ctx.caller.workspaceId, text) : null;
  return { filter: { ...args, status, matchingIds: rankedIds, now: new Date() }, rankedIds };
}

/**
 * The Prisma `where` of a post list (a search narrows it to the matches); drafts need a private key.
 * The cursor connection asks for it twice per request (its page and its totalCount) with the same
 * arguments object: the search runs once.
 */
export function postListWhereOf(ctx: GraphQLContext, args: PostListArgs): Promise<Prisma.PostWhereInput> {
  let where = whereByArgs.get(args);
  if (!where) {
    where = postListFilter(ctx, args).then(({ filter }) => postListWhere(ctx.caller.workspaceId, filter));
    whereByArgs.set(args, where);
  }
  return where;
}
const whereByArgs = new WeakMap<PostListArgs, Promise<Prisma.PostWhereInput>>();

export function publishedAtOrder(
  order: "asc" | "desc" | null | undefined,
): Prisma.PostOrderByWithRelationInput[] {
  return [{ publishedAt: order ?? "desc" }, { id: "asc" }];
}

type PageWindow = ReturnType<typeof pageWindow>;
type PostPageResult = { items: unknown[]; pagination: PageNumbers };

/** One page of posts with the selection of `info` (planned by plugin-prisma) and its pagination. */
export async function postPage(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & PageArgs,
): Promise<PostPageResult> {
  const window = pageWindow(args);
  const plan = planPostItems(ctx, info);
  const { query } = plan;
  const { filter, rankedIds } = await postListFilter(ctx, args);
  const byRank = rankedIds !== null && !args.order;
  if (plan.covered) {
    // The common case (the REST list, a frontend's post list): count, page ids and the field
    // definitions the posts' `fields` need, then the rows: two statements.
    const withFieldDefinitions =
      Boolean(query.select?.fieldValues) && !ctx.loaders.loadedFieldDefinitions.has(ctx.caller.workspaceId);
    const params = new SqlParams();
    const direction = args.order ?? "desc";
    // A public tag page from the tag's links (tagListing); any other list from its condition on Post.
    const listing = byRank ? null : tagListing(ctx.caller.workspaceId, filter, direction, params);
    const matches = listing ? null : postListSql(ctx.caller.workspaceId, filter, params);
    const order = listing
      ? { join: "", orderBy: "" }
      : postListOrder(byRank ? { by: "rank", rankedIds } : { by: "publishedAt", direction }, params);
    const page = {
      condition: matches?.condition ?? "",
      countBy: matches?.count,
      listing,
      ...order,
      limit: window.take,
      offset: window.skip,
      params,
      withFieldDefinitions,
      withLocales: plan.localeFacts && !ctx.loaders.knownWorkspaceLocales(ctx.caller.workspaceId),
      // The response cache's head, read in the page's own snapshot (see AnswerHead in context.ts).
      withHead: ctx.answerHead?.head === null,
      // A tag's posts are found post by post (post-list-sql.ts): once for the count and the page.
      shareMatches: !byRank && Boolean(filter.tags?.length),
      // Counted only when the page's numbers are selected, as PostGraphile counts only for totalCount:
      // the REST list always selects them, a frontend's `posts { items { … } }` need not pay for it.
      withCount: plan.counted,
    };
    const { totalItems, items, fieldDefinitions, head, locales } = await readPostPage(
      ctx.sql,
      ctx.caller.workspaceId,
      page,
      query,
      plan.relationColumns,
    );
    if (fieldDefinitions) ctx.loaders.primeFieldDefinitions(ctx.caller.workspaceId, fieldDefinitions);
    if (locales) ctx.loaders.primeWorkspaceLocales(ctx.caller.workspaceId, locales);
    if (head !== null && ctx.answerHead) ctx.answerHead.head = earlierHead(ctx.answerHead.head, head);
    if (totalItems !== null) return { items, pagination: paginate(totalItems, window) };
    // Not counted. A page past the last is still an error, which needs the total for its message: an
    // empty page after the first is exactly that case, so only it counts now.
    const countLater = async () =>
      paginate(await ctx.prisma.post.count({ where: postListWhere(ctx.caller.workspaceId, filter) }), window);
    if (items.length === 0 && window.page > 1) await countLater();
    return { items, pagination: countLater };
  }
  const where = postListWhere(ctx.caller.workspaceId, filter);
  if (byRank) return rankedPage(ctx, query, where, rankedIds, window);
  return orderedPostPage(ctx, query, { where, orderBy: publishedAtOrder(args.order), window });
}

/**
 * A page of posts in a stable order. When the read model covers the plan (see post-rows.ts), the page's
 * ids come from Prisma (filters and order stay Prisma's) and the rows from one SQL statement;
 * otherwise Prisma loads the planned selection itself.
 */
export async function orderedPostPage(
  ctx: GraphQLContext,
  query: PlannedPostQuery,
  page: { where: Prisma.PostWhereInput; orderBy: Prisma.PostOrderByWithRelationInput[]; window: PageWindow },
): Promise<PostPageResult> {
  const { where, orderBy, window } = page;
  const range = { where, orderBy, skip: window.skip, take: window.take };
  prefetchFieldDefinitions(ctx, query);
  const count = ctx.prisma.post.count({ where });
  if (!readModelCovers(query) || !readModelPays(query)) {
    const [totalItems, items] = await Promise.all([count, ctx.prisma.post.findMany({ ...query, ...range })]);
    return { items, pagination: paginate(totalItems, window) };
  }
  const [totalItems, idRows] = await Promise.all([
    count,
    ctx.prisma.post.findMany({ ...range, select: { id: true } }),
  ]);
  const pagination = paginate(totalItems, window);
  const items = await readPostRows(
    ctx.sql,
    ctx.caller.workspaceId,
    idRows.map((row) => row.id),
    query,
  );
  return { items, pagination };
}

/**
 * Search results, best match first. The search already bounds the matches (SEARCH_MATCH_LIMIT), so
 * the other filters are applied to those ids, which are then ordered by rank and cut into the page.
 */
async function rankedPage(
  ctx: GraphQLContext,
  query: PlannedPostQuery,
  where: Prisma.PostWhereInput,
  rankedIds: string[],
  window: PageWindow,
): Promise<PostPageResult> {
  const rank = new Map(rankedIds.map((id, index) => [id, index]));
  const byRank = (a: string, b: string) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  const matching = rankedIds.length ? await ctx.prisma.post.findMany({ where, select: { id: true } }) : [];
  const ordered = matching.map((row) => row.id).sort(byRank);
  const pagination = paginate(ordered.length, window);
  const pageIds = ordered.slice(window.skip, window.skip + window.take);
  const items = pageIds.length
    ? await ctx.prisma.post.findMany({ ...query, where: { id: { in: pageIds } } })
    : [];
  return { items: items.sort((a, b) => byRank(a.id, b.id)), pagination };
}

/**
 * `fields` of every post needs the workspace's field definitions; asking for them with the page's own
 * queries saves a round trip after them. The per-request loader keeps the promise, so the resolvers get
 * this one (and its error, if it fails: nothing is swallowed).
 */
function prefetchFieldDefinitions(ctx: GraphQLContext, query: PlannedPostQuery): void {
  if (query.select?.fieldValues) ctx.loaders.fieldDefinitions.load(ctx.caller.workspaceId).catch(() => {});
}

/**
 * Of two heads the earlier: an answer made of statements that read different heads shows the content
 * at least at the earlier one, and is stored under it.
 */
function earlierHead(known: string | null, read: string): string {
  return known === null || BigInt(read) < BigInt(known) ? read : known;
}
