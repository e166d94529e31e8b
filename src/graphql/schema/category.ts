// Category: type, queries and mutations.

import { createTaxonomy, deleteTaxonomy, findTaxonomyId, updateTaxonomy } from "../../content/taxonomy.ts";
import { builder } from "../builder.ts";
import { assertCanWrite } from "../context.ts";
import { listPage } from "../list-page.ts";
import { PAGE_ITEMS_COMPLEXITY, PaginationRef, pageArgs, pageListComplexity } from "../pagination.ts";
import { DeleteResult } from "./enums.ts";
import { PostPage } from "./post.ts";
import { PostCount, publishedPostsPage } from "./taxonomy-fields.ts";
import { TaxonomyCreateInput, TaxonomyUpdateInput } from "./taxonomy-inputs.ts";

export const Category = builder.prismaObject("Category", {
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
      resolve: (category) => ({ posts: category._count.posts }),
    }),
    posts: t.field({
      type: PostPage,
      description: "Published posts in this category, newest first",
      args: pageArgs(t.arg),
      complexity: pageListComplexity,
      resolve: (category, args, ctx, info) =>
        publishedPostsPage(ctx, info, { categoryId: category.id }, args),
    }),
  }),
});

const CategoryPage = builder.objectRef<{ items: unknown[]; pagination: object }>("CategoryPage").implement({
  fields: (t) => ({
    items: t.field({
      type: [Category],
      complexity: PAGE_ITEMS_COMPLEXITY,
      resolve: (page) => page.items as never,
    }),
    pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination as never }),
  }),
});

builder.queryFields((t) => ({
  category: t.prismaField({
    type: "Category",
    description: "A category by id or slug",
    args: { identifier: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await findTaxonomyId(ctx.prisma, "category", ctx.caller.workspaceId, args.identifier);
      return ctx.prisma.category.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  categories: t.field({
    type: CategoryPage,
    args: pageArgs(t.arg),
    complexity: pageListComplexity,
    resolve: (_root, args, ctx, info) =>
      listPage(ctx, info, ctx.prisma.category, {
        where: { workspaceId: ctx.caller.workspaceId },
        orderBy: [{ name: "asc" }, { id: "asc" }],
        args,
      }),
  }),
}));

builder.mutationFields((t) => ({
  createCategory: t.prismaField({
    type: "Category",
    args: { input: t.arg({ type: TaxonomyCreateInput("CreateCategoryInput"), required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      assertCanWrite(ctx);
      const id = await createTaxonomy(ctx.prisma, "category", ctx.caller.workspaceId, input);
      return ctx.prisma.category.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateCategory: t.prismaField({
    type: "Category",
    args: {
      identifier: t.arg.string({ required: true }),
      input: t.arg({ type: TaxonomyUpdateInput("UpdateCategoryInput"), required: true }),
    },
    resolve: async (query, _root, { identifier, input }, ctx) => {
      assertCanWrite(ctx);
      const id = await updateTaxonomy(ctx.prisma, "category", ctx.caller.workspaceId, identifier, input);
      return ctx.prisma.category.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteCategory: t.field({
    type: DeleteResult,
    description: "Refused while the category still has posts",
    args: { identifier: t.arg.string({ required: true }) },
    resolve: async (_root, { identifier }, ctx) => {
      assertCanWrite(ctx);
      return { id: await deleteTaxonomy(ctx.prisma, "category", ctx.caller.workspaceId, identifier) };
    },
  }),
}));
