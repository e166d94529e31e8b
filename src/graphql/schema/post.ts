// Post: type, queries (by identifier, page-based list, cursor connection) and mutations.

import type { GraphQLResolveInfo } from "graphql";
import { byIdentifier } from "../../content/identifiers.ts";
import { TRANSLATION_COLUMNS } from "../../content/post-translation-columns.ts";
import { isScheduled, statusWhere } from "../../content/post-visibility.ts";
import { type ReadChain, readChain, servedTranslation } from "../../content/posts/post-translation-reads.ts";
import { createPost, deletePost, updatePost } from "../../content/posts/posts.ts";
import { fieldValuesObject } from "../../content/taxonomy/custom-field-values.ts";
import { canonicalLocaleCode } from "../../domain/locale-codes.ts";
import type { Post as PostRow, Prisma, PrismaClient, Tag as TagRow } from "../../generated/prisma/client.ts";
import { absoluteMediaReferences } from "../../media/media-references.ts";
import {
  isTransformable,
  serviceBaseUrl,
  srcSet,
  storedKeyOfUrl,
  transformUrl,
} from "../../media/transform-url.ts";
import { builder } from "../builder.ts";
import { assertCanReadDrafts, type GraphQLContext, writeOrigin } from "../context.ts";
import { notFoundError } from "../errors.ts";
import { type FieldDefinitionSummary, type StoredValue, translationKey } from "../loaders.ts";
import { DEFAULT_PAGE_SIZE, pageArgs, pageListComplexity, pageType } from "../pagination.ts";
import { readBack } from "../read-back.ts";
import { localeFactOf } from "../read-model/default-locale-facts.ts";
import { followsLocale, servedRelations, withNestedChain } from "../read-model/nested-locale.ts";
import { localizedPostConnection, postConnection } from "../read-model/post-connection.ts";
import { postPage } from "../read-model/post-list.ts";
import { asServed, localizedPostList, valuesLocaleOf, withValuesOf } from "../read-model/post-localized.ts";
import { readPostRows } from "../read-model/post-rows.ts";
import { POST_AUTHORS_ORDER, POST_COLUMNS, POST_TAGS_ORDER } from "../read-model/post-selection.ts";
import { readSinglePost, readsSinglePost } from "../read-model/post-single.ts";
import { relationColumnsOf } from "../read-model/relation-columns.ts";
import { Author } from "./author.ts";
import { Category } from "./category.ts";
import {
  ContentFormatEnum,
  DeleteResult,
  PostStatusEnum,
  PostStatusFilterEnum,
  SortOrderEnum,
} from "./enums.ts";
import { PostFieldEntry } from "./field.ts";
import { checkedTransform, checkedWidths, MediaFormatEnum, MediaTransformInput } from "./media-transform.ts";
import { CreatePostInput, UpdatePostInput } from "./post-inputs.ts";
import { previewGrantedPost } from "./post-preview.ts";
import { Tag } from "./tag.ts";
import { nestedLocaleArgs } from "./taxonomy-locale-args.ts";

const PostAlternate = builder.objectRef<{ locale: string; slug: string }>("PostAlternate").implement({
  description: "One translation of a post: its locale and its slug there",
  fields: (t) => ({
    locale: t.field({ type: "LocaleCode", resolve: (alternate) => alternate.locale }),
    slug: t.exposeString("slug"),
  }),
});

export const Post = builder.prismaObject("Post", {
  // Select mode, so the large body (`content`) loads only when a query asks for it. The small columns
  // are always selected and read with plain resolvers: a field with its own `select` is wrapped by
  // plugin-prisma's per-row bookkeeping, which costs more than reading a dozen short columns.
  select: POST_COLUMNS,
  fields: (t) => ({
    id: t.id({ resolve: (post) => post.id }),
    slug: t.string({ resolve: (post) => post.slug }),
    title: t.string({ resolve: (post) => post.title }),
    status: t.field({ type: PostStatusEnum, resolve: (post) => post.status }),
    featured: t.boolean({ resolve: (post) => post.featured }),
    coverImage: t.string({
      nullable: true,
      description:
        "The cover's URL; with `transform`, of the image resized or converted when the cover is an image this service stores (any other URL is returned as it is)",
      args: { transform: t.arg({ type: MediaTransformInput, required: false }) },
      resolve: (post, args, ctx) => {
        const { config, mediaStorage } = ctx.services;
        const urlFor = (stored: string) => mediaStorage.urlFor(stored);
        const coverImage = absoluteMediaReferences(post.coverImage, urlFor);
        if (!args.transform || !coverImage) return coverImage;
        const transform = checkedTransform(args.transform, config.media.transforms, "transform");
        const key = storedKeyOfUrl(urlFor, coverImage);
        if (!key || !isTransformable(key)) return coverImage;
        return transformUrl(serviceBaseUrl(config), key, transform);
      },
    }),
    coverImageSrcSet: t.string({
      nullable: true,
      description:
        "A `srcset` attribute of the cover, one candidate per width; null unless the cover is an image this service stores",
      args: {
        widths: t.arg.intList({ required: true }),
        format: t.arg({ type: MediaFormatEnum, required: false }),
        quality: t.arg.int({ required: false }),
      },
      resolve: (post, args, ctx) => {
        const { config, mediaStorage } = ctx.services;
        const rules = config.media.transforms;
        const options = checkedTransform(
          { format: args.format, quality: args.quality },
          rules,
          "coverImageSrcSet",
        );
        const widths = checkedWidths(args.widths, rules);
        const urlFor = (stored: string) => mediaStorage.urlFor(stored);
        const coverImage = absoluteMediaReferences(post.coverImage, urlFor);
        const key = coverImage && storedKeyOfUrl(urlFor, coverImage);
        if (!key || !isTransformable(key)) return null;
        return srcSet(serviceBaseUrl(config), key, widths, options);
      },
    }),
    description: t.string({ resolve: (post) => post.description }),
    attribution: t.string({ nullable: true, resolve: (post) => post.attribution }),
    publishedAt: t.field({ type: "DateTime", resolve: (post) => post.publishedAt }),
    scheduled: t.boolean({
      description:
        "Published with a publishedAt still ahead: public from then on (until then private keys only)",
      resolve: (post) => isScheduled(post, new Date()),
    }),
    createdAt: t.field({ type: "DateTime", resolve: (post) => post.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (post) => post.updatedAt }),
    unpublishAt: t.field({
      type: "DateTime",
      nullable: true,
      description:
        "A scheduled unpublish: the post (or the translation served) goes back to draft then and is public to nobody from then on; null when none is scheduled",
      resolve: (post) => post.unpublishAt ?? null,
    }),
    content: t.string({
      description: "The body: sanitized HTML, or markdown converted from it",
      args: { format: t.arg({ type: ContentFormatEnum, defaultValue: "html" }) },
      select: { content: true },
      resolve: (post, args, ctx) => {
        const { mediaStorage } = ctx.services;
        const content = absoluteMediaReferences(post.content, (key) => mediaStorage.urlFor(key));
        return args.format === "markdown" ? ctx.loaders.markdown.load(content) : content;
      },
    }),
    locale: t.field({
      type: "LocaleCode",
      nullable: true,
      description:
        "The locale of the translation served; read without `locale`, the default locale in a workspace of several, else null",
      resolve: (post, _args, ctx) => localeFactOf(post, ctx, (facts) => facts.locale),
    }),
    availableLocales: t.field({
      type: ["LocaleCode"],
      nullable: true,
      description:
        "The locales the post has a translation in (published ones only, for a key that cannot read drafts); null when read without `locale` in a workspace of one locale",
      resolve: (post, _args, ctx) => localeFactOf(post, ctx, (facts) => facts.availableLocales),
    }),
    alternates: t.field({
      type: [PostAlternate],
      nullable: true,
      description:
        "The post's translations as `hreflang` links want them (published ones only, for a key that cannot read drafts); null when read without `locale` in a workspace of one locale",
      resolve: (post, _args, ctx) => localeFactOf(post, ctx, (facts) => facts.alternates),
    }),
    // In a locale (issue 56), the names and descriptions (bios) of the post's own chain, or of the
    // field's `locale` and `fallback` (nested-locale.ts).
    category: t.field({
      type: Category,
      args: nestedLocaleArgs(t.arg),
      select: (_args, _ctx, nestedSelection) => ({ category: nestedSelection(true) }),
      resolve: (post, args, ctx) => {
        if (!followsLocale(post, args)) return post.category;
        const served = servedRelations(ctx, post, args, "category", [post.category]);
        return Array.isArray(served)
          ? (served[0] ?? post.category)
          : served.then(([one]) => one ?? post.category);
      },
    }),
    tags: t.field({
      type: [Tag],
      description: "The post's tags, by name (in a locale, by the name served)",
      args: nestedLocaleArgs(t.arg),
      select: (_args, _ctx, nestedSelection) => ({
        tags: { orderBy: POST_TAGS_ORDER, select: { tag: nestedSelection(true) } },
      }),
      // The Tag type shares Category's typing (taxonomy-schema.ts), so the row's type is named here.
      resolve: (post, args, ctx) =>
        servedRelations(
          ctx,
          post,
          args,
          "tag",
          post.tags.map((link) => link.tag as TagRow),
        ),
    }),
    authors: t.field({
      type: [Author],
      description: "The post's authors, in the order they were given",
      args: nestedLocaleArgs(t.arg),
      select: (_args, _ctx, nestedSelection) => ({
        authors: { orderBy: POST_AUTHORS_ORDER, select: { author: nestedSelection(true) } },
      }),
      resolve: (post, args, ctx) =>
        servedRelations(
          ctx,
          post,
          args,
          "author",
          post.authors.map((link) => link.author),
        ),
    }),
    fields: t.field({
      type: "JSON",
      description: "Custom field values keyed by field key; every key of the workspace, null where unset",
      select: { fieldValues: { select: { fieldId: true, value: true } } },
      resolve: (post, _args, ctx) => {
        const loaded = ctx.loaders.loadedFieldDefinitions.get(post.workspaceId);
        if (loaded && valuesLocaleOf(post) === undefined) return fieldValuesObject(loaded, post.fieldValues);
        return postFieldValues(ctx, post).then(({ definitions, values }) =>
          fieldValuesObject(definitions, values),
        );
      },
    }),
    fieldEntries: t.field({
      type: [PostFieldEntry],
      description: "The same values as `fields`, as typed entries in definition order",
      select: { fieldValues: { select: { fieldId: true, value: true } } },
      resolve: async (post, _args, ctx) => {
        const stored = await postFieldValues(ctx, post);
        const definitions = stored.definitions;
        const values = fieldValuesObject(definitions, stored.values);
        return definitions.map((definition) => ({ definition, value: values[definition.key] ?? null }));
      },
    }),
  }),
});

export const PostPage = pageType("PostPage", Post);

const listFilterArgs = (arg: Parameters<Parameters<typeof builder.queryField>[1]>[0]["arg"]) => ({
  categories: arg.stringList({ required: false, description: "Category slugs to include (any of them)" }),
  excludeCategories: arg.stringList({ required: false, description: "Category slugs to exclude" }),
  tags: arg.stringList({ required: false, description: "Tag slugs to include (posts with any of them)" }),
  excludeTags: arg.stringList({ required: false, description: "Tag slugs to exclude" }),
  query: arg.string({
    required: false,
    description: "Full-text search over title (weighted higher) and content",
  }),
  featured: arg.boolean({ required: false }),
  status: arg({ type: PostStatusFilterEnum, defaultValue: "published" }),
});

builder.queryFields((t) => ({
  post: t.prismaField({
    type: "Post",
    description: "A post by id or slug",
    args: {
      identifier: t.arg.string({ required: true }),
      status: t.arg({ type: PostStatusFilterEnum, defaultValue: "published" }),
      preview: t.arg.string({
        description:
          "A preview token (createPostPreview): shows the post it was made for as it is now, draft or scheduled, to any key; `status` does not apply",
      }),
      locale: t.arg({
        type: "LocaleCode",
        required: false,
        description:
          "Serve this locale's translation: the identifier is matched as an id, or as a slug of this locale, then of each fallback in order; the translation served is the first of the chain the caller may see",
      }),
      fallback: t.arg.string({
        required: false,
        description:
          "With `locale`: the locales to fall back to, comma separated, or `none`; default: the locale's fallback chain",
      }),
    },
    resolve: async (query, _root, args, ctx, info) => {
      const status = args.status ?? "published";
      if (status !== "published" && args.preview == null) assertCanReadDrafts(ctx);
      if (args.locale != null && args.preview == null) {
        // Which translation the locale and its fallbacks serve (post-translation-reads.ts), then the
        // post read by id as any post read is, its localized columns those of the translation served.
        const chain = await readChain(ctx.prisma, ctx.caller.workspaceId, args.locale, args.fallback);
        const now = new Date();
        const found = await servedTranslation(
          ctx.prisma,
          ctx.caller.workspaceId,
          args.identifier,
          chain,
          status,
          now,
          ctx.caller.audience === "private",
        );
        if (!found) throw notFoundError("Post", args.identifier);
        const post = await servedPostRow(ctx, info, query, found.postId, chain);
        if (!post) throw notFoundError("Post", args.identifier);
        const { locale, ...columns } = found.served;
        return asServed(
          post,
          columns,
          { locale, availableLocales: found.availableLocales, alternates: found.alternates },
          locale === chain.defaultCode,
        );
      }
      // A translation's preview token (issue 56): that translation as it is now, draft or scheduled.
      const grant =
        args.preview == null ? null : await previewGrantedPost(ctx, args.identifier, args.preview);
      if (grant?.locale) {
        const chain = await readChain(ctx.prisma, ctx.caller.workspaceId, grant.locale, "none");
        const found = await servedTranslation(
          ctx.prisma,
          ctx.caller.workspaceId,
          grant.postId,
          chain,
          "all",
          new Date(),
          ctx.caller.audience === "private",
        );
        const post = found && (await servedPostRow(ctx, info, query, found.postId, chain));
        if (!found || !post) throw notFoundError("Post", args.identifier);
        const { locale, ...columns } = found.served;
        return asServed(
          post,
          columns,
          { locale, availableLocales: found.availableLocales, alternates: found.alternates },
          locale === chain.defaultCode,
        );
      }
      if (args.preview == null && readsSinglePost(query)) {
        const where = { identifier: args.identifier, status, now: new Date() };
        const post = await readSinglePost(ctx, info, query, where);
        if (!post) throw notFoundError("Post", args.identifier);
        return post;
      }
      const post = await ctx.prisma.post.findFirst({
        ...query,
        where:
          grant === null
            ? {
                ...byIdentifier(ctx.caller.workspaceId, args.identifier, "posts"),
                ...statusWhere(status, new Date()),
              }
            : {
                id: grant.postId,
                workspaceId: ctx.caller.workspaceId,
              },
      });
      if (!post) throw notFoundError("Post", args.identifier);
      return post;
    },
  }),
  posts: t.field({
    type: PostPage,
    description: "Posts, page by page: newest first, or best match first when searching with `query`",
    args: {
      ...pageArgs(t.arg),
      ...listFilterArgs(t.arg),
      order: t.arg({
        type: SortOrderEnum,
        required: false,
        description: "Sort by publishedAt. Default: DESC, or best match first when `query` is given",
      }),
      locale: t.arg({
        type: "LocaleCode",
        required: false,
        description:
          "List each post in this locale's translation, or its fallbacks' (the first the caller may see): filters, search, order and counts apply to the translation served",
      }),
      fallback: t.arg.string({
        required: false,
        description:
          "With `locale`: the locales to fall back to, comma separated, or `none`; default: the locale's fallback chain",
      }),
    },
    complexity: pageListComplexity,
    resolve: (_root, args, ctx, info) =>
      args.locale == null
        ? postPage(ctx, info, args)
        : localizedPostList(ctx, info, { ...args, locale: args.locale }),
  }),
  // Its cursors are bound to the workspace and the arguments that issued them: see post-connection.ts.
  postsConnection: t.connection(
    {
      type: Post,
      description:
        "Posts as a Relay connection (cursor-based), for infinite scrolling; sorted by publishedAt",
      args: {
        ...listFilterArgs(t.arg),
        order: t.arg({ type: SortOrderEnum, defaultValue: "desc" }),
        locale: t.arg({
          type: "LocaleCode",
          required: false,
          description:
            "List each post in this locale's translation, or its fallbacks' (the first the caller may see): filters, search, order and counts apply to the translation served, as in `posts`; cursors then hold the edge's place in the list",
        }),
        fallback: t.arg.string({
          required: false,
          description:
            "With `locale`: the locales to fall back to, comma separated, or `none`; default: the locale's fallback chain",
        }),
      },
      complexity: (args) => ({ field: 1, multiplier: args.first ?? args.last ?? DEFAULT_PAGE_SIZE }),
      resolve: (_root, args, ctx, info) =>
        args.locale == null
          ? postConnection(ctx, info, args)
          : localizedPostConnection(ctx, info, { ...args, locale: args.locale }),
    },
    {
      fields: (connection) => ({
        totalCount: connection.int({
          resolve: ({ totalCount }) => (typeof totalCount === "function" ? totalCount() : totalCount),
        }),
      }),
    },
  ),
}));

/**
 * The definitions and the stored values a post shows: its own, except, when it shows a translation
 * other than the default's (valuesLocaleOf), the localized fields' values, which are that translation's
 * — all of them, none from another translation (issue 56).
 */
async function postFieldValues(
  ctx: GraphQLContext,
  post: { id: string; workspaceId: string; fieldValues: StoredValue[] },
): Promise<{ definitions: FieldDefinitionSummary[]; values: StoredValue[] }> {
  const definitions = await ctx.loaders.fieldDefinitions.load(post.workspaceId);
  const locale = valuesLocaleOf(post);
  const localizedIds = new Set(definitions.filter((d) => d.localized).map((d) => d.id));
  if (locale === undefined || localizedIds.size === 0) return { definitions, values: post.fieldValues };
  const translated = await ctx.loaders.translationFieldValues.load(translationKey(post.id, locale));
  const shared = post.fieldValues.filter((value) => !localizedIds.has(value.fieldId));
  return {
    definitions,
    values: [...shared, ...translated.filter((value) => localizedIds.has(value.fieldId))],
  };
}

/**
 * The post `postId` read in `chain` (issue 56), as Prisma's findFirst with `query` returns it: by the
 * read model when it covers the plan, its category's, tags' and authors' names those the chain serves,
 * read in the same statement; else by Prisma, the fields serving those names (nested-locale.ts).
 */
async function servedPostRow(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  query: { select?: Prisma.PostSelect; include?: Prisma.PostInclude },
  postId: string,
  chain: ReadChain,
): Promise<PostRow | null> {
  const workspaceId = ctx.caller.workspaceId;
  if (readsSinglePost(query)) {
    const [row] = await readPostRows(
      ctx.sql,
      workspaceId,
      [postId],
      query,
      relationColumnsOf(info, null),
      chain,
    );
    return (row as PostRow | undefined) ?? null;
  }
  const post = await ctx.prisma.post.findFirst({ ...query, where: { id: postId, workspaceId } });
  return post && withNestedChain(post, chain, false);
}

/** A mutation's `locale` argument (issue 56): which translation the write is for. */
const writeLocaleArg = (description: string) =>
  builder.args((t) => ({ locale: t.field({ type: "LocaleCode", required: false, description }) }));

/**
 * A written post read back as the translation the write named shows it: the post's row with that
 * translation's localized columns (the default locale's are the row's own).
 */
async function asTranslation<Row extends Record<string, unknown>>(
  ctx: { prisma: PrismaClient },
  row: Row,
  id: string,
  locale: string | null | undefined,
): Promise<Row> {
  if (!locale) return row;
  const translation = await ctx.prisma.postTranslation.findFirst({
    where: { postId: id, locale: canonicalLocaleCode(locale) ?? locale },
    select: { locale: true, ...TRANSLATION_COLUMNS },
  });
  if (!translation) return row;
  const { locale: code, ...columns } = translation;
  return withValuesOf({ ...row, ...columns }, code);
}

builder.mutationFields((t) => ({
  createPost: t.prismaField({
    type: "Post",
    args: {
      input: t.arg({ type: CreatePostInput, required: true }),
      ...writeLocaleArg("The workspace's default locale (where a post starts), or absent"),
    },
    resolve: async (query, _root, { input, locale }, ctx) => {
      const id = await createPost(ctx.prisma, ctx.caller.workspaceId, input, writeOrigin(ctx), locale);
      return readBack(ctx.prisma.post.findUnique({ ...query, where: { id } }), "Post", input.slug);
    },
  }),
  updatePost: t.prismaField({
    type: "Post",
    description:
      "Changes only the given fields; `tags` and `authors`, when given, replace the whole set. With `locale` (not the default), the title, slug, description, content, status and publishedAt go to that translation (created when missing), the other fields to the post",
    args: {
      identifier: t.arg.string({ required: true }),
      input: t.arg({ type: UpdatePostInput, required: true }),
      ...writeLocaleArg("The translation to write; absent: the default locale's"),
    },
    resolve: async (query, _root, { identifier, input, locale }, ctx) => {
      const id = await updatePost(
        ctx.prisma,
        ctx.caller.workspaceId,
        identifier,
        input,
        writeOrigin(ctx),
        locale,
      );
      const post = await readBack(
        ctx.prisma.post.findUnique({ ...query, where: { id } }),
        "Post",
        identifier,
      );
      return asTranslation(ctx, post, id, locale);
    },
  }),
  deletePost: t.field({
    type: DeleteResult,
    description:
      "Deletes the post and all its translations; with `locale`, that one translation only (never the default's)",
    args: {
      identifier: t.arg.string({ required: true }),
      ...writeLocaleArg("Remove only this translation (not the default locale's)"),
    },
    resolve: async (_root, { identifier, locale }, ctx) => {
      return { id: await deletePost(ctx.prisma, ctx.caller.workspaceId, identifier, locale) };
    },
  }),
}));
