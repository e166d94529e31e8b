// Author: type, queries and mutations.

import { liveWhere } from "../../content/post-visibility.ts";
import { readChain } from "../../content/posts/post-translation-reads.ts";
import { createAuthor, deleteAuthor, findAuthorId, updateAuthor } from "../../content/taxonomy/authors.ts";
import type { Social } from "../../domain/inputs.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { absoluteMediaReferences } from "../../media/media-references.ts";
import { builder } from "../builder.ts";
import { listPage } from "../list-page.ts";
import { pageArgs, pageListComplexity, pageType } from "../pagination.ts";
import { readBack } from "../read-back.ts";
import { localizeRecords, servableWhere, servedLocaleOf } from "../read-model/taxonomy-localized.ts";
import { DeleteResult } from "./enums.ts";
import { PostCount } from "./taxonomy-fields.ts";
import { readLocaleArgs, writeLocaleArg } from "./taxonomy-locale-args.ts";

const SocialRef = builder.objectRef<Social>("Social").implement({
  fields: (t) => ({ platform: t.exposeString("platform"), url: t.exposeString("url") }),
});

const SocialInput = builder.inputType("SocialInput", {
  fields: (t) => ({
    platform: t.string({
      required: true,
      description:
        "x, twitter, github, facebook, instagram, youtube, tiktok, linkedin, website, onlyfans, discord or bluesky",
    }),
    url: t.string({ required: true }),
  }),
});

// Include mode (all columns; author rows are small): exposed fields then resolve without
// plugin-prisma's per-row bookkeeping, which only fields with their own `select` need.
export const Author = builder.prismaObject("Author", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    slug: t.exposeString("slug"),
    image: t.string({
      nullable: true,
      resolve: (author, _args, ctx) =>
        absoluteMediaReferences(author.image, (key) => ctx.services.mediaStorage.urlFor(key)),
    }),
    bio: t.exposeString("bio", { nullable: true }),
    locale: t.field({
      type: "LocaleCode",
      nullable: true,
      description: "The locale whose name and bio were served; null unless read with `locale`",
      resolve: (author) => servedLocaleOf(author),
    }),
    role: t.exposeString("role", { nullable: true }),
    email: t.string({
      nullable: true,
      description: "Only visible to private keys: public keys are embedded in websites",
      resolve: (author, _args, ctx) => (ctx.caller.audience === "private" ? author.email : null),
    }),
    socials: t.field({
      type: [SocialRef],
      resolve: (author) => (Array.isArray(author.socials) ? (author.socials as unknown as Social[]) : []),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    count: t.field({
      type: PostCount,
      // A function: scheduled posts count from their publishedAt on, so `now` is each request's.
      select: () => ({ _count: { select: { posts: { where: { post: liveWhere(new Date()) } } } } }),
      resolve: (author) => ({ posts: author._count.posts }),
    }),
  }),
});

const AuthorPage = pageType("AuthorPage", Author);

const authorWriteFields = (
  t: Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0],
  required: boolean,
) => ({
  name: t.string({ required }),
  slug: t.string({ required }),
  bio: t.string({ required: false }),
  role: t.string({ required: false }),
  email: t.string({ required: false }),
  image: t.string({ required: false }),
  socials: t.field({
    type: [SocialInput],
    required: false,
    description: "Replaces the whole list when given",
  }),
});

const CreateAuthorInput = builder.inputType("CreateAuthorInput", {
  fields: (t) => authorWriteFields(t, true),
});
const UpdateAuthorInput = builder.inputType("UpdateAuthorInput", {
  fields: (t) => authorWriteFields(t, false),
});

builder.queryFields((t) => ({
  author: t.prismaField({
    type: "Author",
    description: "An author by id or slug",
    args: { identifier: t.arg.string({ required: true }), ...readLocaleArgs(t.arg) },
    resolve: async (query, _root, args, ctx) => {
      const chain =
        args.locale == null
          ? null
          : await readChain(ctx.prisma, ctx.caller.workspaceId, args.locale, args.fallback);
      const id = await findAuthorId(ctx.prisma, ctx.caller.workspaceId, args.identifier);
      const row = await readBack(
        ctx.prisma.author.findUnique({ ...query, where: { id } }),
        "Author",
        args.identifier,
      );
      if (!chain) return row;
      const [served] = await localizeRecords(ctx, "author", [row], chain);
      return readBack(Promise.resolve(served ?? null), "Author", args.identifier);
    },
  }),
  authors: t.field({
    type: AuthorPage,
    args: { ...pageArgs(t.arg), ...readLocaleArgs(t.arg) },
    complexity: pageListComplexity,
    resolve: async (_root, args, ctx, info) => {
      const chain =
        args.locale == null
          ? null
          : await readChain(ctx.prisma, ctx.caller.workspaceId, args.locale, args.fallback);
      const listed = await listPage<Prisma.AuthorGetPayload<object>>(ctx, info, ctx.prisma.author, {
        where: { workspaceId: ctx.caller.workspaceId, ...(chain ? servableWhere(chain) : {}) },
        orderBy: [{ name: "asc" }, { id: "asc" }],
        args,
      });
      if (!chain) return listed;
      return { ...listed, items: await localizeRecords(ctx, "author", listed.items, chain) };
    },
  }),
}));

builder.mutationFields((t) => ({
  createAuthor: t.prismaField({
    type: "Author",
    args: { input: t.arg({ type: CreateAuthorInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const id = await createAuthor(ctx.prisma, ctx.caller.workspaceId, input as never);
      return readBack(ctx.prisma.author.findUnique({ ...query, where: { id } }), "Author", input.slug ?? id);
    },
  }),
  updateAuthor: t.prismaField({
    type: "Author",
    description:
      "Changes only the given fields. With `locale` (not the default), the name and bio go to that locale (created when missing: it then needs a name), the other fields to the author",
    args: {
      identifier: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateAuthorInput, required: true }),
      ...writeLocaleArg(t.arg, "The locale whose name and bio to write; absent: the default locale's"),
    },
    resolve: async (query, _root, { identifier, input, locale }, ctx) => {
      const workspaceId = ctx.caller.workspaceId;
      const id = await updateAuthor(ctx.prisma, workspaceId, identifier, input, locale);
      const row = await readBack(
        ctx.prisma.author.findUnique({ ...query, where: { id } }),
        "Author",
        identifier,
      );
      if (locale == null) return row;
      const chain = await readChain(ctx.prisma, workspaceId, locale, "none");
      const [served] = await localizeRecords(ctx, "author", [row], chain);
      return readBack(Promise.resolve(served ?? null), "Author", identifier);
    },
  }),
  deleteAuthor: t.field({
    type: DeleteResult,
    args: {
      identifier: t.arg.string({ required: true }),
      ...writeLocaleArg(
        t.arg,
        "Remove only this locale's name and bio (not the default locale's), not the author",
      ),
    },
    resolve: async (_root, { identifier, locale }, ctx) => {
      return { id: await deleteAuthor(ctx.prisma, ctx.caller.workspaceId, identifier, locale) };
    },
  }),
}));
