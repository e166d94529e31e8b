// Tag: type, queries and mutations.

import { createTaxonomy, deleteTaxonomy, findTaxonomyId, updateTaxonomy } from "../../content/taxonomy.ts";
import { builder } from "../builder.ts";
import { assertCanWrite } from "../context.ts";
import { listPage } from "../list-page.ts";
import { PAGE_ITEMS_COMPLEXITY, PaginationRef, pageArgs, pageListComplexity } from "../pagination.ts";
import { DeleteResult } from "./enums.ts";
import { PostPage } from "./post.ts";
import { PostCount, publishedPostsPage } from "./taxonomy-fields.ts";
import { TaxonomyCreateInput, TaxonomyUpdateInput } from "./taxonomy-inputs.ts";

export const Tag = builder.prismaObject("Tag", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    slug: t.exposeString("slug"),
    description: t.exposeString("description", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    count: t.field({
      type: PostCount,
      select: { _count: { select: { posts: { where: { status: "published" } } } } },
      resolve: (tag) => ({ posts: tag._count.posts }),
    }),
    posts: t.field({
      type: PostPage,
      description: "Published posts with this tag, newest first",
      args: pageArgs(t.arg),
      complexity: pageListComplexity,
      resolve: (tag, args, ctx, info) =>
        publishedPostsPage(ctx, info, { tags: { some: { id: tag.id } } }, args),
    }),
  }),
});

const TagPage = builder.objectRef<{ items: unknown[]; pagination: object }>("TagPage").implement({
  fields: (t) => ({
    items: t.field({
      type: [Tag],
      complexity: PAGE_ITEMS_COMPLEXITY,
      resolve: (page) => page.items as never,
    }),
    pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination as never }),
  }),
});

builder.queryFields((t) => ({
  tag: t.prismaField({
    type: "Tag",
    description: "A tag by id or slug",
    args: { identifier: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await findTaxonomyId(ctx.prisma, "tag", ctx.caller.workspaceId, args.identifier);
      return ctx.prisma.tag.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  tags: t.field({
    type: TagPage,
    args: pageArgs(t.arg),
    complexity: pageListComplexity,
    resolve: (_root, args, ctx, info) =>
      listPage(ctx, info, ctx.prisma.tag, {
        where: { workspaceId: ctx.caller.workspaceId },
        orderBy: [{ name: "asc" }, { id: "asc" }],
        args,
      }),
  }),
}));

builder.mutationFields((t) => ({
  createTag: t.prismaField({
    type: "Tag",
    args: { input: t.arg({ type: TaxonomyCreateInput("CreateTagInput"), required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      assertCanWrite(ctx);
      const id = await createTaxonomy(ctx.prisma, "tag", ctx.caller.workspaceId, input);
      return ctx.prisma.tag.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateTag: t.prismaField({
    type: "Tag",
    args: {
      identifier: t.arg.string({ required: true }),
      input: t.arg({ type: TaxonomyUpdateInput("UpdateTagInput"), required: true }),
    },
    resolve: async (query, _root, { identifier, input }, ctx) => {
      assertCanWrite(ctx);
      const id = await updateTaxonomy(ctx.prisma, "tag", ctx.caller.workspaceId, identifier, input);
      return ctx.prisma.tag.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteTag: t.field({
    type: DeleteResult,
    args: { identifier: t.arg.string({ required: true }) },
    resolve: async (_root, { identifier }, ctx) => {
      assertCanWrite(ctx);
      return { id: await deleteTaxonomy(ctx.prisma, "tag", ctx.caller.workspaceId, identifier) };
    },
  }),
}));
