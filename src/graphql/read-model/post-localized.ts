// Posts read in a locale (issue 56): a post row with its served translation's localized columns, and
// what the read may tell of its translations (Post.locale, availableLocales, alternates), kept on the
// row under a symbol the Post type's resolvers read. The one post (schema/post.ts) and the list (below)
// both make their rows here.
import type { GraphQLResolveInfo } from "graphql";
import { logHead } from "../../content/changes/change-log.ts";
import { TRANSLATION_COLUMNS } from "../../content/post-translation-columns.ts";
import type { PostStatusFilter } from "../../content/post-visibility.ts";
import { isLive } from "../../content/post-visibility.ts";
import { checkSearchText } from "../../content/posts/post-search.ts";
import { localizedPostPage } from "../../content/posts/post-translation-list.ts";
import {
  passesStatus,
  type ReadChain,
  readChain,
  type TranslationColumns,
} from "../../content/posts/post-translation-reads.ts";
import { assertCanReadDrafts, type GraphQLContext } from "../context.ts";
import { type PageArgs, pageWindow, paginate } from "../pagination.ts";
import type { PostListArgs } from "./post-list.ts";
import { planPostItems } from "./post-plans.ts";
import { readPostRows } from "./post-rows.ts";

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

/** The row as `served` shows it (its localized columns; the default's are the row's own). */
export function asServed<Row extends object>(
  row: Row,
  served: Partial<Omit<TranslationColumns, "locale">>,
  localized: Localized,
): Row {
  return Object.assign(row, served, { [LOCALIZED]: localized });
}

/** A page of posts in a locale (content/posts/post-translation-list.ts), each row as it is served. */
export async function localizedPostList(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostListArgs & PageArgs & { locale: string; fallback?: string | null },
) {
  const window = pageWindow(args);
  const status: PostStatusFilter = args.status ?? "published";
  if (status !== "published") assertCanReadDrafts(ctx);
  const search = args.query?.trim() || null;
  if (search) checkSearchText(search, ctx.services.config.search);
  const workspaceId = ctx.caller.workspaceId;
  // The response cache's head is read no later than the request's first statement (AnswerHead in
  // context.ts): here, on its own, before the chain. Without it a list in a locale was never stored.
  if (ctx.answerHead?.head === null) ctx.answerHead.head = await logHead(ctx.sql, workspaceId);
  const chain = await readChain(ctx.prisma, workspaceId, args.locale, args.fallback);
  const now = new Date();
  const { total, page } = await localizedPostPage(ctx.sql, workspaceId, {
    filter: { ...args, status, now },
    chain,
    search,
    order: args.order ?? (search ? "rank" : "desc"),
    skip: window.skip,
    take: window.take,
  });
  const pagination = paginate(total, window);
  const ids = page.map((entry) => entry.id);
  const plan = planPostItems(ctx, info);
  // The rows as any list reads them (one statement when the read model covers the selection), and
  // the page's translations (their localized columns, and what availableLocales and alternates tell).
  const [rows, translations] = await Promise.all([
    plan.covered
      ? readPostRows(ctx.sql, workspaceId, ids, plan.query, plan.relationColumns)
      : ctx.prisma.post.findMany({ ...plan.query, where: { id: { in: ids }, workspaceId } }),
    ids.length === 0
      ? []
      : ctx.prisma.postTranslation.findMany({
          where: { postId: { in: ids } },
          select: { postId: true, locale: true, ...TRANSLATION_COLUMNS },
        }),
  ]);
  const seesDrafts = ctx.caller.audience === "private";
  const byId = new Map(rows.map((row) => [(row as { id: string }).id, row as PostRow]));
  const items = page.flatMap(({ id, locale }) => {
    const row = byId.get(id);
    if (!row) return [];
    // The default locale's translation is the row itself (its small columns are always read).
    const own = { locale: chain.defaultCode, ...row } as unknown as TranslationColumns;
    const versions: TranslationColumns[] = [
      own,
      ...translations
        .filter((translation) => translation.postId === id)
        .map(({ postId: _p, ...rest }) => rest),
    ];
    const served = versions.find((version) => version.locale === locale);
    if (!served || !passesStatus(served, status, now)) return [];
    const facts = localizedFacts(versions, chain, locale, seesDrafts, now);
    return [served === own ? asServed(row, {}, facts) : asServed(row, withoutLocale(served), facts)];
  });
  return { items, pagination };
}

function withoutLocale(version: TranslationColumns): Omit<TranslationColumns, "locale"> {
  const { locale: _locale, ...columns } = version;
  return columns;
}

/** availableLocales and alternates of a post's translations, as the caller may be told of them. */
function localizedFacts(
  versions: TranslationColumns[],
  chain: ReadChain,
  locale: string,
  seesDrafts: boolean,
  now: Date,
): Localized {
  const told = chain.workspaceLocales
    .map((code) => versions.find((version) => version.locale === code))
    .filter((version): version is TranslationColumns => version !== undefined)
    .filter((version) => seesDrafts || isLive(version, now));
  return {
    locale,
    availableLocales: told.map((version) => version.locale),
    alternates: told.map((version) => ({ locale: version.locale, slug: version.slug })),
  };
}
