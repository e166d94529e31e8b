// What Category and Tag types share: the published-post count and the `posts` page.
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import { liveWhere } from "../../content/post-visibility.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { type PageArgs, pageWindow } from "../pagination.ts";
import { orderedPostPage, publishedAtOrder } from "../read-model/post-list.ts";

export const PostCount = builder.objectRef<{ posts: number }>("PostCount").implement({
  description: "Counts of related records",
  fields: (t) => ({ posts: t.exposeInt("posts", { description: "Published posts" }) }),
});

/** Published posts matching `where`, newest first, one page of them. */
export function publishedPostsPage(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  where: Prisma.PostWhereInput,
  args: PageArgs,
) {
  return orderedPostPage(ctx, queryFromInfo({ context: ctx, info, path: ["items"] }), {
    where: { ...where, workspaceId: ctx.caller.workspaceId, ...liveWhere(new Date()) },
    orderBy: publishedAtOrder("desc"),
    window: pageWindow(args),
  });
}
