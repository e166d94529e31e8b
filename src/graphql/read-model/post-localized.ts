// Posts read in a locale (issue 56): a post row with its served translation's localized columns, and
// what the read may tell of its translations (Post.locale, availableLocales, alternates), kept on the
// row under a symbol the Post type's resolvers read. The one post (schema/post.ts) and the list (below)
// both make their rows here.
import { isDeepStrictEqual } from "node:util";
import type { GraphQLResolveInfo } from "graphql";
import { logHeadExpression } from "../../content/changes/change-log.ts";
import type { PostStatusFilter } from "../../content/post-visibility.ts";
import { isLive } from "../../content/post-visibility.ts";
import { checkSearchText } from "../../content/posts/post-search.ts";
import { localizedPostPage } from "../../content/posts/post-translation-list.ts";
import {
  chainOf,
  localesJson,
  passesStatus,
  type ReadChain,
  readLocales,
  rememberedLocales,
  rememberLocales,
  type StoredLocale,
  type TranslationColumns,
} from "../../content/posts/post-translation-reads.ts";
import { assertCanReadDrafts, type GraphQLContext } from "../context.ts";
import { type FieldDefinitionSummary, fieldDefinitionsJson } from "../loaders.ts";
import { type PageArgs, pageWindow, paginate } from "../pagination.ts";
import { withNestedChain } from "./nested-locale.ts";
import type { PostListArgs } from "./post-list.ts";
import { planPostItems } from "./post-plans.ts";
import { ONE_STATEMENT_PAGE_SIZES, readPostRows } from "./post-rows.ts";

/** A post row as a list reads it: its small columns at least (POST_COLUMNS), its selection besides. */
type PostRow = Record<string, unknown> & { id: string; slug: string; status: string; publishedAt: Date };

const LOCALIZED = Symbol("localized");

export interface Localized {
  locale: string;
  availableLocales: string[];
  alternates: { locale: string; slug: string }[];
}

/** What a post row read in a locale was served; undefined for a row read without one. */
export function localizedOf(post: object): Localized | undefined {
  return (post as { [LOCALIZED]?: Localized })[LOCALIZED];
}

const VALUES_LOCALE = Symbol("valuesLocale");

/**
 * The locale (not the default) whose translation the row's localized custom field values are read
 * from; undefined: the row's own values (the default locale's, or a read without locale).
 */
export function valuesLocaleOf(post: object): string | undefined {
  return (post as { [VALUES_LOCALE]?: string })[VALUES_LOCALE];
}

/** Marks the row as showing the translation in `locale` (not the default's): its localized values too. */
export function withValuesOf<Row extends object>(row: Row, locale: string): Row {
  return Object.assign(row, { [VALUES_LOCALE]: locale });
}

/**
 * The row as `served` shows it (its localized columns and localized field values; the default's are the
 * row's own, `ownTranslation`).
 */
export function asServed<Row extends object>(
  row: Row,
  served: Partial<Omit<TranslationColumns, "locale">>,
  localized: Localized,
  ownTranslation: boolean,
): Row {
  Object.assign(row, served, { [LOCALIZED]: localized });
  return ownTranslation ? row : withValuesOf(row, localized.locale);
}

/** A page of posts in a locale (content/posts/post-translation-list.ts), each row as it is served. */
export async function localizedPostList(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & PageArgs & { locale: string; fallback?: string | null },
) {
  const window = pageWindow(args);
  const { items, total } = await localizedPostRows(ctx, info, args, window, ["items"]);
  return { items, pagination: paginate(total, window) };
}

/**
 * `take` posts after the first `skip` of the list in a locale, each row as it is served, and how many
 * the list holds; the posts' selection is the one at `path` under the field (posts: `items`,
 * postsConnection: `edges.node`).
 */
export async function localizedPostRows(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & { locale: string; fallback?: string | null; order?: "asc" | "desc" | null },
  window: { skip: number; take: number },
  path: string[],
): Promise<{ items: PostRow[]; total: number }> {
  const status: PostStatusFilter = args.status ?? "published";
  if (status !== "published") assertCanReadDrafts(ctx);
  const search = args.query?.trim() || null;
  if (search) checkSearchText(search, ctx.services.config.search);
  const workspaceId = ctx.caller.workspaceId;
  const plan = planPostItems(ctx, info, path);
  // A page that shows fields reads the workspace's definitions in the page's statement.
  const withDefinitions = Boolean(plan.query.select?.fieldValues);
  // The chain from the locales this instance last saw, checked by the page's statement, which reads them
  // too: changed since, the page is read again on the chain they make now (one statement more, once).
  const remembered = rememberedLocales(ctx.prisma, workspaceId);
  let locales = remembered ?? (await readLocales(ctx.prisma, workspaceId));
  let chain: ReadChain;
  try {
    chain = chainOf(locales, args.locale, args.fallback);
  } catch (error) {
    // An unknown code may be a locale added since: refused only on the locales read now.
    if (!remembered) throw error;
    locales = await readLocales(ctx.prisma, workspaceId);
    chain = chainOf(locales, args.locale, args.fallback);
  }
  const now = new Date();
  const wantsHead = ctx.answerHead?.head === null;
  const pageOn = (on: ReadChain) =>
    localizedPostPage(ctx.sql, workspaceId, {
      filter: { ...args, status, now },
      chain: on,
      search,
      order: args.order ?? (search ? "rank" : "desc"),
      skip: window.skip,
      take: window.take,
      sizeInText: ONE_STATEMENT_PAGE_SIZES.has(window.take),
      extraColumns: (params) => {
        const workspace = params.add(workspaceId);
        const definitions = withDefinitions
          ? `, ${fieldDefinitionsJson(workspace)} AS "fieldDefinitions"`
          : "";
        // The response cache's head (AnswerHead in context.ts), in the snapshot the page and the
        // locales were read in: the rows, read after, are newer still.
        const head = wantsHead ? `, ${logHeadExpression(workspace)} AS head` : "";
        return `${definitions}, ${localesJson(workspace)} AS locales${head}`;
      },
    });
  let read = await pageOn(chain);
  const current = read.extras.locales as StoredLocale[];
  if (!isDeepStrictEqual(current, locales)) {
    rememberLocales(ctx.prisma, workspaceId, current);
    chain = chainOf(current, args.locale, args.fallback);
    read = await pageOn(chain);
  }
  const { total, page, translations, extras } = read;
  if (wantsHead && ctx.answerHead) ctx.answerHead.head = extras.head as string;
  const definitions = extras.fieldDefinitions as FieldDefinitionSummary[] | undefined;
  if (definitions) ctx.loaders.primeFieldDefinitions(workspaceId, definitions);
  const ids = page.map((entry) => entry.id);
  // The rows as any list reads them (one statement when the read model covers the selection); the
  // page's translations (their localized columns, and what availableLocales and alternates tell) came
  // with the page.
  // The category's, tags' and authors' names follow the chain: read so in the rows' statement, or, by a
  // plan the read model does not cover, by the fields (nested-locale.ts).
  const rows =
    ids.length === 0
      ? []
      : plan.covered
        ? await readPostRows(ctx.sql, workspaceId, ids, plan.query, plan.relationColumns, chain)
        : (await ctx.prisma.post.findMany({ ...plan.query, where: { id: { in: ids }, workspaceId } })).map(
            (row) => withNestedChain(row, chain, false),
          );
  const seesDrafts = ctx.caller.audience === "private";
  const byId = new Map(rows.map((row) => [(row as { id: string }).id, row as PostRow]));
  const items = page.flatMap(({ id, locale }) => {
    const row = byId.get(id);
    if (!row) return [];
    // The default locale's translation is the row itself (its small columns are always read).
    const own = { locale: chain.defaultCode, ...row } as unknown as Version;
    const versions: Version[] = [
      own,
      ...translations
        .filter((translation) => translation.postId === id)
        .map(({ postId: _p, ...rest }) => rest),
    ];
    const served = versions.find((version) => version.locale === locale);
    if (!served || !passesStatus(served, status, now)) return [];
    const facts = localizedFacts(versions, chain, locale, seesDrafts, now);
    return [
      served === own ? asServed(row, {}, facts, true) : asServed(row, withoutLocale(served), facts, false),
    ];
  });
  return { items, total };
}

/** A translation as the page's statement reads it: the body only of the one served. */
type Version = Omit<TranslationColumns, "content"> & { content: string | null };

/** The served translation's columns in place of the row's (its body read with it, never null). */
function withoutLocale(version: Version): Partial<Omit<TranslationColumns, "locale">> {
  const { locale: _locale, content, ...columns } = version;
  return content === null ? columns : { ...columns, content };
}

/** availableLocales and alternates of a post's translations, as the caller may be told of them. */
export function localizedFacts(
  versions: { locale: string; slug: string; status: string; publishedAt: Date; unpublishAt: Date | null }[],
  chain: Pick<ReadChain, "workspaceLocales">,
  locale: string,
  seesDrafts: boolean,
  now: Date,
): Localized {
  const told = chain.workspaceLocales
    .map((code) => versions.find((version) => version.locale === code))
    .filter((version) => version !== undefined)
    .filter((version) => seesDrafts || isLive(version, now));
  return {
    locale,
    availableLocales: told.map((version) => version.locale),
    alternates: told.map((version) => ({ locale: version.locale, slug: version.slug })),
  };
}
