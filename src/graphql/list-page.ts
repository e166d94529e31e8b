// The page-based list every resource offers: a count and one page of rows, planned by plugin-prisma.
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import type { GraphQLContext } from "./context.ts";
import { type PageArgs, type Pagination, pageWindow, paginate } from "./pagination.ts";

interface PageableDelegate {
  count(args: { where: object }): Promise<number>;
  findMany(args: object): Promise<unknown[]>;
}

export async function listPage<Row>(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  delegate: PageableDelegate,
  options: { where: object; orderBy: object[]; args: PageArgs },
): Promise<{ items: Row[]; pagination: Pagination }> {
  const window = pageWindow(options.args);
  const [totalItems, items] = await Promise.all([
    delegate.count({ where: options.where }),
    delegate.findMany({
      ...queryFromInfo({ context: ctx, info, path: ["items"] }),
      where: options.where,
      orderBy: options.orderBy,
      skip: window.skip,
      take: window.take,
    }),
  ]);
  return { items: items as Row[], pagination: paginate(totalItems, window) };
}
