// postsConnection, resolved here rather than by t.prismaConnection: the plugin's cursors are the bare
// post id, which a key of any workspace could hand back and page from. Ours are bound to the workspace
// and the arguments (connection-cursors.ts) and hold a position, not a row to look up. Everything else
// follows plugin-prisma's connections: the same argument rules and page sizes, the same pageInfo, and
// the nodes loaded with the selection below them as one planned Prisma query.
import { getConnectionPageSize, PothosValidationError, validateConnectionArguments } from "@pothos/core";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { type GraphQLResolveInfo, Kind } from "graphql";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { GraphQLContext } from "../context.ts";
import {
  decodeLocalizedPostCursor,
  decodePostCursor,
  encodeLocalizedPostCursor,
  encodePostCursor,
  localizedPostListScope,
  type PostPosition,
  postListScope,
} from "../cursors/connection-cursors.ts";
import { type Connection, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../pagination.ts";
import { type PostListArgs, postListWhereOf, publishedAtOrder } from "./post-list.ts";
import { localizedPostRows } from "./post-localized.ts";
import type { PlannedPostQuery } from "./post-rows.ts";
import type { POST_COLUMNS } from "./post-selection.ts";

/** A node as Post's type reads it: the planned selection always holds Post's own columns. */
type PostRow = Prisma.PostGetPayload<{ select: typeof POST_COLUMNS }>;

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

type PostConnection = Connection<PostRow>;

/** One page of the post list after or before a cursor, with the selection of `info` under its edges. */
export async function postConnection(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & ConnectionArgs,
): Promise<PostConnection> {
  const take = pageTake(args);
  const scope = postListScope(ctx.caller.workspaceId, args);
  const cursor = args.before ?? args.after;
  // Checked first: a cursor of another workspace or query is refused before anything is read.
  const position = cursor == null ? null : decodePostCursor(cursor, scope);
  // `args` is the same object for both, so a search runs once (see postListWhereOf).
  const totalCount = async () => ctx.prisma.post.count({ where: await postListWhereOf(ctx, args) });
  if (asksOnlyForTotalCount(info)) return connectionOf([], args, take, scope, totalCount);
  const query = (await queryFromInfo({
    context: ctx,
    info,
    typeName: "Post",
    select: { id: true, publishedAt: true },
    paths: [["edges", "node"]],
    awaitSelections: true,
  })) as PlannedPostQuery;
  const where = await postListWhereOf(ctx, args);
  const rows = await ctx.prisma.post.findMany({
    ...query,
    where: position ? { AND: [where, beyond(position, args)] } : where,
    orderBy: publishedAtOrder(args.order),
    take,
  });
  return connectionOf(rows as PostRow[], args, take, scope, totalCount);
}

/**
 * postsConnection with `locale` (issue 56): the list as `posts(locale:)` reads it — filters, order and
 * the count on the translation each post is served — paged by offset (its cursors hold the edge's
 * offset, connection-cursors.ts), with the same argument rules and pageInfo as without.
 */
export async function localizedPostConnection(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & ConnectionArgs & { locale: string; fallback?: string | null },
): Promise<PostConnection> {
  const limit = Math.abs(pageTake(args));
  const scope = localizedPostListScope(ctx.caller.workspaceId, args, args.locale, args.fallback);
  const cursor = args.before ?? args.after;
  // Checked first: a cursor of another workspace or query is refused before anything is read.
  const offset = cursor == null ? null : decodeLocalizedPostCursor(cursor, scope);
  const path = ["edges", "node"];
  const read = (skip: number, take: number) => localizedPostRows(ctx, info, args, { skip, take }, path);
  if (asksOnlyForTotalCount(info)) {
    const { total } = await read(0, 0);
    return localizedConnectionOf([], scope, 0, { hasPreviousPage: false, hasNextPage: false }, total);
  }
  if (args.before == null && args.last == null) {
    // Forwards: one post more than the page, to tell whether another follows.
    const skip = offset === null ? 0 : offset + 1;
    const { items, total } = await read(skip, limit + 1);
    return localizedConnectionOf(
      items.slice(0, limit) as PostRow[],
      scope,
      skip,
      { hasPreviousPage: args.after != null, hasNextPage: items.length > limit },
      total,
    );
  }
  // Backwards: the `limit` posts before the cursor, or the list's last ones (its count read first).
  const end = offset ?? (await read(0, 0)).total;
  const skip = Math.max(0, end - limit);
  const { items, total } = await read(skip, end - skip);
  return localizedConnectionOf(
    items as PostRow[],
    scope,
    skip,
    { hasPreviousPage: skip > 0, hasNextPage: args.before != null },
    total,
  );
}

function localizedConnectionOf(
  nodes: PostRow[],
  scope: string,
  skip: number,
  pages: { hasPreviousPage: boolean; hasNextPage: boolean },
  total: number,
): PostConnection {
  const edges = nodes.map((node, index) => ({
    cursor: encodeLocalizedPostCursor(scope, skip + index),
    node,
  }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      ...pages,
    },
    totalCount: async () => total,
  };
}

/**
 * Prisma's `take` for the page: one more row than the page holds, to tell whether another page
 * follows; negative when paging backwards (`before` or `last`), so Prisma takes the rows nearest the
 * end. The rules are plugin-prisma's, with its messages (mapped to BAD_USER_INPUT).
 */
function pageTake(args: ConnectionArgs): number {
  validateConnectionArguments(args);
  if (args.before && args.after) {
    throw new PothosValidationError('Arguments "before" and "after" are not supported at the same time');
  }
  if (args.before != null && args.first != null) {
    throw new PothosValidationError('Arguments "before" and "first" are not supported at the same time');
  }
  if (args.after != null && args.last != null) {
    throw new PothosValidationError('Arguments "after" and "last" are not supported at the same time');
  }
  const { limit } = getConnectionPageSize({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE });
  return args.before != null || args.last != null ? -limit : limit;
}

/**
 * The posts strictly beyond a position in the list's order (publishedAt in `order`, then id
 * ascending): after it, or before it when paging backwards. Stated as values rather than Prisma's
 * `cursor`, which reads the cursor's row (of any workspace) and skips a row even when that one has
 * left the list.
 */
function beyond(position: PostPosition, args: PostListArgs & ConnectionArgs): Prisma.PostWhereInput {
  const backwards = args.before != null;
  const later = (args.order ?? "desc") === "desc" ? backwards : !backwards;
  const { publishedAt, id } = position;
  return {
    OR: [
      { publishedAt: later ? { gt: publishedAt } : { lt: publishedAt } },
      { publishedAt, id: backwards ? { lt: id } : { gt: id } },
    ],
  };
}

/** The page and its pageInfo, as plugin-prisma's connections give them. */
function connectionOf(
  rows: PostRow[],
  args: ConnectionArgs,
  take: number,
  scope: string,
  totalCount: () => Promise<number>,
): PostConnection {
  const fullPage = rows.length === Math.abs(take);
  const backwards = take < 0;
  const nodes = fullPage ? (backwards ? rows.slice(1) : rows.slice(0, -1)) : rows;
  const edges = nodes.map((node) => ({ cursor: encodePostCursor(scope, node), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasPreviousPage: args.after != null || (backwards && fullPage),
      hasNextPage: args.before != null || (!backwards && fullPage),
    },
    totalCount,
  };
}

/** A selection of only `totalCount` (and `__typename`) needs no page: the count alone answers it. */
function asksOnlyForTotalCount(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.every((node) =>
    node.selectionSet?.selections.every(
      (selection) =>
        selection.kind === Kind.FIELD &&
        (selection.name.value === "totalCount" || selection.name.value === "__typename"),
    ),
  );
}
