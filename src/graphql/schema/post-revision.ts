// Post revisions (src/content/posts/post-revisions.ts): `Post.revisions`, `postRevision`,
// `postRevisionComparison` and the `restorePostRevision` mutation. Private keys only: a revision may
// hold a draft's content, and who wrote it.
import {
  compareRevisions,
  getRevision,
  listRevisions,
  type PostRevisionRecord,
  type RevisionComparison,
  restoreRevision,
  revisedPostId,
  revisionLocale,
} from "../../content/posts/post-revisions.ts";
import { absoluteMediaReferencesIn } from "../../media/media-references.ts";
import { builder } from "../builder.ts";
import { writeOrigin } from "../context.ts";
import { pageArgs, pageListComplexity, pageType, pageWindow, paginate } from "../pagination.ts";
import { readBack } from "../read-back.ts";
import { Post } from "./post.ts";

export const PostRevision = builder.objectRef<PostRevisionRecord>("PostRevision").implement({
  description: "A post's content as one write left it",
  fields: (t) => ({
    number: t.exposeInt("number", { description: "1, 2, 3 … per post, in write order" }),
    createdAt: t.field({ type: "DateTime", resolve: (revision) => revision.createdAt }),
    actorKeyId: t.exposeString("actorKeyId", {
      nullable: true,
      description: "The API key that made the write (null: the CLI or seed)",
    }),
    actorName: t.exposeString("actorName", { nullable: true, description: "How that key is shown" }),
    locale: t.field({
      type: "LocaleCode",
      nullable: true,
      description: "The translation the write was for; null: the default locale's (the post itself)",
      resolve: (revision) => revision.locale,
    }),
    snapshot: t.field({
      type: "JSON",
      description: "The post's read form after the write (title, content, category, tags, authors, fields …)",
      // As stored: imported files named relative (media-references.ts), absolute here as in the post's reads.
      resolve: (revision, _args, ctx) =>
        absoluteMediaReferencesIn(revision.snapshot, (key) => ctx.services.mediaStorage.urlFor(key)),
    }),
  }),
});

const PostRevisionPage = pageType("PostRevisionPage", PostRevision);

const RevisionFieldChange = builder
  .objectRef<RevisionComparison["changes"][number]>("RevisionFieldChange")
  .implement({
    fields: (t) => ({
      field: t.exposeString("field"),
      from: t.field({ type: "JSON", nullable: true, resolve: (change) => change.from as never }),
      to: t.field({ type: "JSON", nullable: true, resolve: (change) => change.to as never }),
    }),
  });

const ContentDiffPart = builder
  .objectRef<RevisionComparison["contentDiff"][number]>("ContentDiffPart")
  .implement({
    description: "A run of body lines: unchanged, added or removed",
    fields: (t) => ({
      added: t.exposeBoolean("added"),
      removed: t.exposeBoolean("removed"),
      value: t.exposeString("value"),
    }),
  });

const RevisionComparisonRef = builder.objectRef<RevisionComparison>("RevisionComparison").implement({
  fields: (t) => ({
    from: t.exposeInt("from"),
    to: t.exposeInt("to"),
    changes: t.field({ type: [RevisionFieldChange], resolve: (comparison) => comparison.changes }),
    contentDiff: t.field({ type: [ContentDiffPart], resolve: (comparison) => comparison.contentDiff }),
  }),
});

builder.objectField(Post, "revisions", (t) =>
  t.field({
    type: PostRevisionPage,
    description:
      "The post's revisions, newest first (private keys only): the default locale's, or with `locale` that translation's",
    args: {
      ...pageArgs(t.arg),
      locale: t.arg({ type: "LocaleCode", required: false, description: "Whose revisions: a translation's" }),
    },
    complexity: pageListComplexity,
    resolve: async (post, args, ctx) => {
      const window = pageWindow(args);
      const locale = await revisionLocale(ctx.prisma, ctx.caller.workspaceId, args.locale);
      const { total, items } = await listRevisions(ctx.prisma, post.id, window, locale);
      return { items, pagination: paginate(total, window) };
    },
  }),
);

type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]["arg"];
const revisionArgs = (t: { arg: ArgBuilder }) => ({
  identifier: t.arg.string({ required: true, description: "The post's id or slug" }),
  number: t.arg.int({ required: true }),
});

builder.queryFields((t) => ({
  postRevision: t.field({
    type: PostRevision,
    description: "One revision of a post (private keys only)",
    args: revisionArgs(t),
    resolve: async (_root, args, ctx) => {
      const postId = await revisedPostId(ctx.prisma, ctx.caller.workspaceId, args.identifier);
      return getRevision(ctx.prisma, postId, args.number);
    },
  }),
  postRevisionComparison: t.field({
    type: RevisionComparisonRef,
    description: "What changed from revision `compareTo` to revision `number` (private keys only)",
    args: { ...revisionArgs(t), compareTo: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const postId = await revisedPostId(ctx.prisma, ctx.caller.workspaceId, args.identifier);
      const [from, to] = await Promise.all([
        getRevision(ctx.prisma, postId, args.compareTo),
        getRevision(ctx.prisma, postId, args.number),
      ]);
      // Compared as read: imported files' relative references absolute on both sides, as in the snapshots.
      const asRead = (revision: PostRevisionRecord): PostRevisionRecord => ({
        ...revision,
        snapshot: absoluteMediaReferencesIn(revision.snapshot, (key) =>
          ctx.services.mediaStorage.urlFor(key),
        ) as PostRevisionRecord["snapshot"],
      });
      return compareRevisions(asRead(from), asRead(to));
    },
  }),
}));

builder.mutationFields((t) => ({
  restorePostRevision: t.prismaField({
    type: "Post",
    description:
      "Puts a post back to one of its revisions: an update that records a new revision and the usual events",
    args: revisionArgs(t),
    resolve: async (query, _root, args, ctx) => {
      const postId = await revisedPostId(ctx.prisma, ctx.caller.workspaceId, args.identifier);
      await restoreRevision(ctx.prisma, ctx.caller.workspaceId, postId, args.number, writeOrigin(ctx));
      return readBack(
        ctx.prisma.post.findUnique({ ...query, where: { id: postId } }),
        "Post",
        args.identifier,
      );
    },
  }),
}));
