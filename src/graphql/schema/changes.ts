// The change feed: `changes(since:, first:, types:, format:, locale:)` — what this key can see that
// changed since its cursor, as upserts and tombstones (src/content/changes/change-feed.ts). Public and
// private keys alike; a public key's feed holds published posts only, and with `locale` that locale's
// published translations only (issue 56).
import { FEED_RESOURCES, feedHead, readChanges } from "../../content/changes/change-feed.ts";
import { retentionCutoff } from "../../content/changes/event-retention.ts";
import type { FeedResource } from "../../content/changes/event-snapshots.ts";
import { namedLocale } from "../../content/locales/locales.ts";
import { htmlToMarkdown } from "../../content/posts/markdown.ts";
import { absoluteMediaReferencesIn } from "../../media/media-references.ts";
import { builder } from "../builder.ts";
import { changeFeedScope, decodeFeedCursor, encodeFeedCursor } from "../cursors/change-feed-cursors.ts";
import { LATEST_CURSOR } from "../cursors/cursor-codec.ts";
import { cursorExpiredError, userInputError } from "../errors.ts";
import { fitFeedData } from "../feed-answer-size.ts";
import { MAX_PAGE_SIZE } from "../pagination.ts";
import { ContentFormatEnum } from "./enums.ts";

const DEFAULT_FEED_PAGE_SIZE = 50;

/** `posts` or `post` → "post": the REST door speaks of kinds in the plural, entries name one record. */
const TYPE_NAMES: Record<string, FeedResource> = {
  posts: "post",
  post: "post",
  categories: "category",
  category: "category",
  tags: "tag",
  tag: "tag",
  authors: "author",
  author: "author",
};

interface ChangeEntryRow {
  op: "upsert" | "delete";
  type: FeedResource;
  id: string;
  slug: string | null;
  removedAt: Date | null;
  data: Record<string, unknown> | null;
}

const ChangeOpEnum = builder.enumType("ChangeOp", {
  values: { UPSERT: { value: "upsert" }, DELETE: { value: "delete" } } as const,
});

const ChangeEntry = builder.objectRef<ChangeEntryRow>("ChangeEntry").implement({
  description:
    "A record as it is now (UPSERT), or gone from this key's view (DELETE: deleted or no longer visible)",
  fields: (t) => ({
    op: t.field({ type: ChangeOpEnum, resolve: (row) => row.op }),
    type: t.exposeString("type", { description: "post, category, tag or author" }),
    id: t.exposeID("id"),
    slug: t.exposeString("slug", {
      nullable: true,
      description:
        "DELETE only: the last known slug, when visible (public keys: the slug the post was public under)",
    }),
    removedAt: t.field({ type: "DateTime", nullable: true, resolve: (row) => row.removedAt }),
    data: t.field({
      type: "JSON",
      nullable: true,
      description:
        "UPSERT only: the record as its REST GET answers it; on a page too large for one answer, the largest records in a smaller form naming the fields left out in `omittedFields` (read them with GET)",
      resolve: (row) => row.data,
    }),
  }),
});

const ChangePage = builder
  .objectRef<{ changes: ChangeEntryRow[]; nextCursor: string; hasMore: boolean }>("ChangePage")
  .implement({
    fields: (t) => ({
      changes: t.field({ type: [ChangeEntry], resolve: (page) => page.changes }),
      nextCursor: t.exposeString("nextCursor", {
        description: "Keep it: the next read starts here (it may stop inside one change's records)",
      }),
      hasMore: t.exposeBoolean("hasMore", { description: "Read again from nextCursor at once" }),
    }),
  });

builder.queryField("changes", (t) =>
  t.field({
    type: ChangePage,
    description:
      "What changed since `since` (everything visible when omitted), as upserts and tombstones in log order; poll with the returned nextCursor",
    args: {
      since: t.arg.string({
        required: false,
        description: "A nextCursor of an earlier page, or `latest`: only what changes from now on",
      }),
      first: t.arg.int({
        required: false,
        description: `Changes per page, at most ${MAX_PAGE_SIZE}, however many records one change reaches`,
      }),
      types: t.arg.stringList({
        required: false,
        description: "posts, categories, tags, authors (default all)",
      }),
      format: t.arg({ type: ContentFormatEnum, defaultValue: "html" }),
      locale: t.arg({
        type: "LocaleCode",
        required: false,
        description:
          "Posts in this locale's translation, from the changes that concern it (a key that cannot read drafts: its published translations only); default: the default locale's",
      }),
    },
    complexity: (args) => ({ field: 1, multiplier: args.first ?? DEFAULT_FEED_PAGE_SIZE }),
    resolve: async (_root, args, ctx) => {
      const types = feedTypes(args.types ?? null);
      const limit = args.first ?? DEFAULT_FEED_PAGE_SIZE;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
        throw userInputError(`first must be 1–${MAX_PAGE_SIZE}`, [
          { field: "first", message: `1–${MAX_PAGE_SIZE}` },
        ]);
      const locale = await namedLocale(ctx.prisma, ctx.caller.workspaceId, args.locale);
      const scope = changeFeedScope(
        ctx.caller.workspaceId,
        ctx.caller.audience,
        types,
        locale.named ? locale.code : null,
      );
      const since =
        args.since == null
          ? null
          : args.since === LATEST_CURSOR
            ? { at: await feedHead(ctx.prisma, ctx.caller.workspaceId), issuedAt: new Date() }
            : decodeFeedCursor(args.since, scope);
      const retentionDays = ctx.services.config.events.retentionDays;
      if (since && since.issuedAt < retentionCutoff(retentionDays)) throw cursorExpiredError(retentionDays);
      const page = await readChanges(ctx.prisma, {
        workspaceId: ctx.caller.workspaceId,
        publicOnly: ctx.caller.audience !== "private",
        types,
        from: since?.at ?? null,
        limit,
        locale,
      });
      const markdown = args.format === "markdown";
      // Records as stored name imported files relative (media-references.ts): absolute, as reads have
      // them, before a body becomes markdown.
      const urlFor = (key: string) => ctx.services.mediaStorage.urlFor(key);
      const changes = page.entries.map((entry) => {
        if (entry.op !== "upsert") return { ...entry, data: null };
        const data = absoluteMediaReferencesIn(entry.data, urlFor) as Record<string, unknown>;
        return {
          ...entry,
          slug: null,
          removedAt: null,
          data:
            markdown && entry.type === "post" && typeof data.content === "string"
              ? { ...data, content: htmlToMarkdown(data.content) }
              : data,
        };
      });
      // A page always fits in an answer, however large its records (feed-answer-size.ts).
      const data = fitFeedData(
        changes.map((change) => change.data),
        ctx.services.config.graphql.maxResponseBytes,
      );
      return {
        changes: changes.map((change, index) => ({ ...change, data: data[index] ?? null })),
        nextCursor: encodeFeedCursor(scope, page.next, new Date()),
        hasMore: page.hasMore,
      };
    },
  }),
);

function feedTypes(given: readonly string[] | null): FeedResource[] {
  if (!given || given.length === 0) return [...FEED_RESOURCES];
  const unknown = given.filter((type) => !(type in TYPE_NAMES));
  if (unknown.length > 0)
    throw userInputError(`Unknown types: ${unknown.join(", ")}`, [
      { field: "types", message: "Each must be posts, categories, tags or authors" },
    ]);
  return FEED_RESOURCES.filter((type) => given.some((name) => TYPE_NAMES[name] === type));
}
