// Categories and tags are the same resource with two names: one definition of the type, its queries
// and its mutations, instantiated by category.ts and tag.ts. Their `posts` field is added by
// taxonomy-posts.ts, so that the post type (which lists a post's tags) and these types do not import
// each other.

import {
  createTaxonomy,
  deleteTaxonomy,
  findTaxonomyId,
  type TaxonomyModel,
  updateTaxonomy,
} from "../../content/taxonomy/taxonomy.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { listPage } from "../list-page.ts";
import { pageArgs, pageListComplexity, pageType } from "../pagination.ts";
import { readBack } from "../read-back.ts";
import { DeleteResult } from "./enums.ts";
import { PostCount } from "./taxonomy-fields.ts";
import { TaxonomyCreateInput, TaxonomyUpdateInput } from "./taxonomy-inputs.ts";

interface TaxonomySchema {
  /** GraphQL and Prisma model name. */
  type: "Category" | "Tag";
  one: TaxonomyModel;
  many: "categories" | "tags";
  /**
   * Which of a record's `posts` count as published at `now` (post-visibility.ts): Post rows
   * (categories) or PostTag links (tags).
   */
  publishedLinks: (now: Date) => Prisma.PostWhereInput | Prisma.PostTagWhereInput;
  deleteDescription?: string;
}

export function defineTaxonomySchema(spec: TaxonomySchema) {
  // Both models have the same columns, so one typing (Category's) describes either.
  const type = spec.type as "Category";
  const delegate = (ctx: GraphQLContext) =>
    ctx.prisma[spec.one] as unknown as GraphQLContext["prisma"]["category"];

  // Include mode (all columns; these rows are small): exposed fields then resolve without
  // plugin-prisma's per-row bookkeeping, which only fields with their own `select` need.
  const ref = builder.prismaObject(type, {
    name: spec.type,
    fields: (t) => ({
      id: t.exposeID("id"),
      name: t.exposeString("name"),
      slug: t.exposeString("slug"),
      description: t.exposeString("description", { nullable: true }),
      createdAt: t.expose("createdAt", { type: "DateTime" }),
      updatedAt: t.expose("updatedAt", { type: "DateTime" }),
      count: t.field({
        type: PostCount,
        // Typed as Category's (see `type` above), whose `posts` are Post rows.
        // A function: scheduled posts count from their publishedAt on, so `now` is each request's.
        select: () => ({
          _count: { select: { posts: { where: spec.publishedLinks(new Date()) as Prisma.PostWhereInput } } },
        }),
        resolve: (record) => ({ posts: record._count.posts }),
      }),
    }),
  });

  const page = pageType(`${spec.type}Page`, ref);

  builder.queryFields((t) => ({
    [spec.one]: t.prismaField({
      type,
      description: `A ${spec.one} by id or slug`,
      args: { identifier: t.arg.string({ required: true }) },
      resolve: async (query, _root, args, ctx) => {
        const id = await findTaxonomyId(ctx.prisma, spec.one, ctx.caller.workspaceId, args.identifier);
        return readBack(delegate(ctx).findUnique({ ...query, where: { id } }), spec.type, args.identifier);
      },
    }),
    [spec.many]: t.field({
      type: page,
      args: pageArgs(t.arg),
      complexity: pageListComplexity,
      resolve: (_root, args, ctx, info) =>
        listPage(ctx, info, delegate(ctx), {
          where: { workspaceId: ctx.caller.workspaceId },
          orderBy: [{ name: "asc" }, { id: "asc" }],
          args,
        }),
    }),
  }));

  builder.mutationFields((t) => ({
    [`create${spec.type}`]: t.prismaField({
      type,
      args: { input: t.arg({ type: TaxonomyCreateInput(`Create${spec.type}Input`), required: true }) },
      resolve: async (query, _root, { input }, ctx) => {
        const id = await createTaxonomy(ctx.prisma, spec.one, ctx.caller.workspaceId, input);
        return readBack(delegate(ctx).findUnique({ ...query, where: { id } }), spec.type, input.slug);
      },
    }),
    [`update${spec.type}`]: t.prismaField({
      type,
      args: {
        identifier: t.arg.string({ required: true }),
        input: t.arg({ type: TaxonomyUpdateInput(`Update${spec.type}Input`), required: true }),
      },
      resolve: async (query, _root, { identifier, input }, ctx) => {
        const id = await updateTaxonomy(ctx.prisma, spec.one, ctx.caller.workspaceId, identifier, input);
        return readBack(delegate(ctx).findUnique({ ...query, where: { id } }), spec.type, identifier);
      },
    }),
    [`delete${spec.type}`]: t.field({
      type: DeleteResult,
      ...(spec.deleteDescription ? { description: spec.deleteDescription } : {}),
      args: { identifier: t.arg.string({ required: true }) },
      resolve: async (_root, { identifier }, ctx) => {
        return { id: await deleteTaxonomy(ctx.prisma, spec.one, ctx.caller.workspaceId, identifier) };
      },
    }),
  }));

  return ref;
}
