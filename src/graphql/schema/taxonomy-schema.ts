// Categories and tags are the same resource with two names: one definition of the type, its queries
// and its mutations, instantiated by category.ts and tag.ts. Their `posts` field is added by
// taxonomy-posts.ts, so that the post type (which lists a post's tags) and these types do not import
// each other.

import { readChain } from "../../content/posts/post-translation-reads.ts";
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
import { localizeRecords, servableWhere, servedLocaleOf } from "../read-model/taxonomy-localized.ts";
import { DeleteResult } from "./enums.ts";
import { PostCount } from "./taxonomy-fields.ts";
import { TaxonomyCreateInput, TaxonomyUpdateInput } from "./taxonomy-inputs.ts";
import { readLocaleArgs, writeLocaleArg } from "./taxonomy-locale-args.ts";

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
      locale: t.field({
        type: "LocaleCode",
        nullable: true,
        description: "The locale whose name and description were served; null unless read with `locale`",
        resolve: (record) => servedLocaleOf(record),
      }),
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
      args: { identifier: t.arg.string({ required: true }), ...readLocaleArgs(t.arg) },
      resolve: async (query, _root, args, ctx) => {
        const chain =
          args.locale == null
            ? null
            : await readChain(ctx.prisma, ctx.caller.workspaceId, args.locale, args.fallback);
        const id = await findTaxonomyId(ctx.prisma, spec.one, ctx.caller.workspaceId, args.identifier);
        const row = await readBack(
          delegate(ctx).findUnique({ ...query, where: { id } }),
          spec.type,
          args.identifier,
        );
        if (!chain) return row;
        const [served] = await localizeRecords(ctx, spec.one, [row], chain);
        return readBack(Promise.resolve(served ?? null), spec.type, args.identifier);
      },
    }),
    [spec.many]: t.field({
      type: page,
      args: { ...pageArgs(t.arg), ...readLocaleArgs(t.arg) },
      complexity: pageListComplexity,
      resolve: async (_root, args, ctx, info) => {
        const chain =
          args.locale == null
            ? null
            : await readChain(ctx.prisma, ctx.caller.workspaceId, args.locale, args.fallback);
        const listed = await listPage<Prisma.CategoryGetPayload<object>>(ctx, info, delegate(ctx), {
          where: { workspaceId: ctx.caller.workspaceId, ...(chain ? servableWhere(chain) : {}) },
          orderBy: [{ name: "asc" }, { id: "asc" }],
          args,
        });
        if (!chain) return listed;
        return { ...listed, items: await localizeRecords(ctx, spec.one, listed.items, chain) };
      },
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
      description: `Changes only the given fields. With \`locale\` (not the default), the name and description go to that locale (created when missing: it then needs a name), the slug to the ${spec.one}`,
      args: {
        identifier: t.arg.string({ required: true }),
        input: t.arg({ type: TaxonomyUpdateInput(`Update${spec.type}Input`), required: true }),
        ...writeLocaleArg(
          t.arg,
          "The locale whose name and description to write; absent: the default locale's",
        ),
      },
      resolve: async (query, _root, { identifier, input, locale }, ctx) => {
        const workspaceId = ctx.caller.workspaceId;
        const id = await updateTaxonomy(ctx.prisma, spec.one, workspaceId, identifier, input, locale);
        const row = await readBack(
          delegate(ctx).findUnique({ ...query, where: { id } }),
          spec.type,
          identifier,
        );
        if (locale == null) return row;
        const chain = await readChain(ctx.prisma, workspaceId, locale, "none");
        const [served] = await localizeRecords(ctx, spec.one, [row], chain);
        return readBack(Promise.resolve(served ?? null), spec.type, identifier);
      },
    }),
    [`delete${spec.type}`]: t.field({
      type: DeleteResult,
      ...(spec.deleteDescription ? { description: spec.deleteDescription } : {}),
      args: {
        identifier: t.arg.string({ required: true }),
        ...writeLocaleArg(
          t.arg,
          `Remove only this locale's name and description (not the default locale's), not the ${spec.one}`,
        ),
      },
      resolve: async (_root, { identifier, locale }, ctx) => {
        return { id: await deleteTaxonomy(ctx.prisma, spec.one, ctx.caller.workspaceId, identifier, locale) };
      },
    }),
  }));

  return ref;
}
