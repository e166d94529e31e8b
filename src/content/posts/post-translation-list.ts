// A post list in a locale (issue 56): every filter, the search, the order and the count run, in SQL, on
// the translation each post would be served (post-translation-reads.ts: the first of the chain that
// passes the status filter), so `totalItems` is the number of posts one can page through and fetch one
// by one with the same locale. Shared fields (category, tags, featured) are the post's; status,
// publication date and the search document are the served translation's. One statement either way:
//   - a list by date (no search) counts and pages without looking at every post: the count is the posts
//     whose own (default) version passes plus those whose own does not but a translation of the chain
//     does; the page is, per locale of the chain, its passing versions newest first that no earlier
//     locale of the chain shadows, each cut at the page's end, merged (pagedByDate);
//   - a search ranks the served translation of every post that passes the shared filters (servedAll).
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { statementName } from "../../db/statement-names.ts";
import { liveSql } from "../post-visibility.ts";
import type { PostListFilter, PostStatusFilter } from "./post-filters.ts";
import { postListCondition, SqlParams } from "./post-list-sql.ts";
import type { ReadChain, TranslationColumns } from "./post-translation-reads.ts";

export interface LocalizedListQuery {
  filter: Omit<PostListFilter, "matchingIds">;
  chain: ReadChain;
  /** The search text (web-search syntax), matched against the served translation's document. */
  search: string | null;
  /** By publishedAt, or best match first (only with a search). */
  order: "asc" | "desc" | "rank";
  skip: number;
  take: number;
  /**
   * Write the page's size into the statement's text on its first page, rather than a placeholder: only
   * for the few sizes the caller allows (graphql/read-model/post-rows.ts ONE_STATEMENT_PAGE_SIZES), one
   * text each. A LIMIT or OFFSET placeholder makes PostgreSQL plan the statement afresh on every run (its
   * generic plan assumes a tenth of the rows, so it never looks cheaper than one made for the values),
   * and this statement's planning cost more than running it (bench/translation-list-requests.ts).
   */
  sizeInText?: boolean;
  /**
   * More columns the statement reads beside its page, as `, <expression> AS "<name>"` (the workspace's
   * field definitions for a page that shows fields): one round trip fewer. Returned in `extras`.
   */
  extraColumns?: (params: SqlParams) => string;
}

/** The page's posts and the locale each is served in, and how many posts the list holds. */
export interface LocalizedListPage {
  total: number;
  page: { id: string; locale: string }[];
  /**
   * Every translation of the page's posts (the default's is the post itself); `content` only on the one
   * served, null on the others.
   */
  translations: (Omit<TranslationColumns, "content"> & { postId: string; content: string | null })[];
  /** The extra columns asked for, by name. */
  extras: Record<string, unknown>;
}

/** A status filter on a translation aliased `alias` (post-visibility.ts's rule, on a translation). */
function versionStatus(alias: string, status: PostStatusFilter, at: () => string): string {
  if (status === "all") return "true";
  if (status === "draft") return `${alias}.status = 'draft'::"PostStatus"`;
  if (status === "published") return liveSql(alias, at());
  return `${alias}.status = 'published'::"PostStatus" AND ${alias}."publishedAt" > ${at()}`;
}

/**
 * The complement of versionStatus on `alias`, as disjoint conditions (none for `all`): each names its
 * status, so that each is a range of the (workspaceId, status, publishedAt) index, counted apart — the
 * few posts whose own version fails, rather than a scan of all (an OR of them is one the generic plan
 * of a prepared statement estimates as a third of the table, and scans).
 */
function versionFails(alias: string, status: PostStatusFilter, at: () => string): string[] {
  if (status === "all") return [];
  if (status === "draft") return [`${alias}.status = 'published'::"PostStatus"`];
  if (status === "scheduled")
    return [
      `${alias}.status = 'draft'::"PostStatus"`,
      `${alias}.status = 'published'::"PostStatus" AND ${alias}."publishedAt" <= ${at()}`,
    ];
  // Not live: a draft, scheduled, or past its unpublishAt (which lies after its publishedAt).
  return [
    `${alias}.status = 'draft'::"PostStatus"`,
    `${alias}.status = 'published'::"PostStatus" AND ${alias}."publishedAt" > ${at()}`,
    `${alias}.status = 'published'::"PostStatus" AND ${alias}."publishedAt" <= ${at()} AND ${alias}."unpublishAt" <= ${at()}`,
  ];
}

export async function localizedPostPage(
  sql: SqlExecutor,
  workspaceId: string,
  list: LocalizedListQuery,
): Promise<LocalizedListPage> {
  const params = new SqlParams();
  const { filter } = list;
  // The shared filters, on the post itself: its status is no longer the list's (the translation's is).
  const shared = postListCondition(workspaceId, { ...filter, status: "all", matchingIds: null }, params);
  // The moment, a parameter once when a status filter needs it (an unused one has no type to infer), read
  // through a subquery: the planner then estimates the conditions on it alike for a plan made for the
  // values and for the generic plan, so the plan cache settles on the generic one. Seen as a value,
  // "published after this moment" counts few posts where a generic plan assumes a third of them, the
  // generic plan never looked cheaper, and the statement was planned afresh on every run: more time
  // than running it (bench/translation-list-requests.ts).
  let moment: string | null = null;
  const at = () => {
    moment ??= `(SELECT ${params.add(filter.now.toISOString())}::timestamptz AT TIME ZONE 'UTC')`;
    return moment;
  };
  const { ctes, total, page } =
    list.search || list.order === "rank"
      ? servedAll(list, { params, shared, at })
      : pagedByDate(list, list.order, { params, shared, at });
  const extraColumns = list.extraColumns?.(params) ?? "";
  // The page's posts with their order (`ord`), then everything the read needs of them.
  const statement = `WITH ${[...ctes, `page AS MATERIALIZED (${page})`].join(",\n")}
SELECT ${total} AS total,
  (SELECT json_agg(json_build_object('id', page.id, 'locale', page.locale) ORDER BY page.ord) FROM page) AS page,
  (SELECT json_agg(json_build_object(${TRANSLATION_JSON}))
     FROM page JOIN "PostTranslation" tr ON tr."postId" = page.id) AS translations${extraColumns}`;
  const [row] = await sql.query<
    {
      total: number;
      page: { id: string; locale: string }[] | null;
      translations: (Omit<TranslationColumns, "publishedAt" | "updatedAt" | "unpublishAt" | "content"> & {
        postId: string;
        content: string | null;
        publishedAt: number;
        updatedAt: number;
        unpublishAt: number | null;
      })[];
    } & Record<string, unknown>
  >(statement, params.values, { name: statementName(statement) });
  const { total: count, page: served, translations, ...extras } = row ?? {};
  return {
    total: count ?? 0,
    page: served ?? [],
    translations: (translations ?? []).map((translation) => ({
      ...translation,
      publishedAt: new Date(translation.publishedAt),
      updatedAt: new Date(translation.updatedAt),
      unpublishAt: translation.unpublishAt === null ? null : new Date(translation.unpublishAt),
    })),
    extras,
  };
}

/** A translation's columns (TRANSLATION_COLUMNS, with its post and locale) as json, timestamps in ms. */
const TRANSLATION_JSON = [
  `'postId', tr."postId", 'locale', tr.locale`,
  `'slug', tr.slug, 'title', tr.title, 'description', tr.description`,
  // The body only of the translation served: the others tell their slug, status and dates.
  `'content', CASE WHEN tr.locale = page.locale THEN tr.content END`,
  `'status', tr.status::text`,
  // Prisma keeps UTC wall time in timestamp(3): the epoch of that wall time is the instant's.
  `'publishedAt', round(date_part('epoch', tr."publishedAt") * 1000)`,
  `'updatedAt', round(date_part('epoch', tr."updatedAt") * 1000)`,
  `'unpublishAt', round(date_part('epoch', tr."unpublishAt") * 1000)`,
].join(", ");

/** How a statement finds its page: CTEs it needs, the count, and the page as (id, locale, ord) rows. */
interface PageParts {
  ctes: string[];
  total: string;
  page: string;
}

interface StatementParts {
  params: SqlParams;
  /** The shared filters as a condition on `"Post" p` (workspace included). */
  shared: string;
  /** The status filter's moment as a placeholder. */
  at: () => string;
}

/**
 * A list by date: the count and the page from the indexes, in time with the page's end rather than the
 * workspace's size (bench/translation-list-requests.ts). A version is served when it passes the status
 * filter and no version of an earlier locale of the chain does: each locale's branch reads its versions
 * newest (or oldest) first through its (workspaceId, locale, publishedAt) index, drops the shadowed ones
 * by a primary-key probe each, and stops at the page's end; the branches merge in the list's order.
 */
function pagedByDate(list: LocalizedListQuery, direction: "asc" | "desc", parts: StatementParts): PageParts {
  const { params, shared, at } = parts;
  const { chain, filter } = list;
  const status = filter.status;
  const dir = direction === "asc" ? "ASC" : "DESC";
  const { limit, offset } = pageBounds(list, params);
  const end = list.skip === 0 ? limit : params.add(list.skip + list.take);
  const codes = chain.locales.map((code) => ({ code, placeholder: params.add(code) }));
  const translated = (before: typeof codes) => before.filter(({ code }) => code !== chain.defaultCode);
  /** A translation of the post `postId` in one of `locales` that passes the filter. */
  /**
   * A translation of the post `postId` in one of `locales` that passes the filter, looked up by primary
   * key. `probe`: kept a lookup per row (OFFSET 0 keeps PostgreSQL from making it a join), where the
   * planner would otherwise hash every passing translation of the workspace to test a few posts.
   */
  const anyPasses = (postId: string, locales: typeof codes, probe = false) =>
    `EXISTS (SELECT 1 FROM "PostTranslation" e WHERE e."postId" = ${postId} AND e.locale IN (${locales
      .map(({ placeholder }) => placeholder)
      .join(", ")}) AND ${versionStatus("e", status, at)}${probe ? " OFFSET 0" : ""})`;
  const branches = codes.map(({ code, placeholder }, index) => {
    const earlier = codes.slice(0, index);
    const shadowed = translated(earlier);
    if (code === chain.defaultCode) {
      const unshadowed = shadowed.length ? ` AND NOT ${anyPasses("p.id", shadowed)}` : "";
      return `(SELECT p.id, ${placeholder}::text AS locale, p."publishedAt" FROM "Post" p
      WHERE ${shared} AND ${versionStatus("p", status, at)}${unshadowed}
      ORDER BY p."publishedAt" ${dir}, p.id LIMIT ${end})`;
    }
    const conditions = [
      `t."workspaceId" = p."workspaceId"`,
      `t.locale = ${placeholder}`,
      versionStatus("t", status, at),
      ...(shadowed.length ? [`NOT ${anyPasses('t."postId"', shadowed)}`] : []),
      ...(earlier.some(({ code: before }) => before === chain.defaultCode)
        ? [`(${["false", ...versionFails("p", status, at)].map((c) => `(${c})`).join(" OR ")})`]
        : []),
    ];
    return `(SELECT t."postId" AS id, ${placeholder}::text AS locale, t."publishedAt"
      FROM "PostTranslation" t JOIN "Post" p ON p.id = t."postId"
      WHERE ${shared} AND ${conditions.join(" AND ")}
      ORDER BY t."publishedAt" ${dir}, t."postId" LIMIT ${end})`;
  });
  // Every post with a passing version is listed once: its own passes, or else one of the chain's
  // translations does (the default not in the chain: only the latter).
  const others = translated(codes);
  const hasDefault = codes.length !== others.length;
  const countWhere = (condition: string) =>
    `(SELECT count(*) FROM "Post" p WHERE ${shared} AND ${condition})`;
  const counts = hasDefault
    ? [
        countWhere(versionStatus("p", status, at)),
        ...(others.length
          ? versionFails("p", status, at).map((fails) =>
              countWhere(`${fails} AND ${anyPasses("p.id", others, true)}`),
            )
          : []),
      ]
    : [countWhere(anyPasses("p.id", others))];
  const order = `v."publishedAt" ${dir}, v.id`;
  return {
    ctes: [],
    total: `(${counts.join(" + ")})::int`,
    page: `SELECT v.id, v.locale, row_number() OVER (ORDER BY ${order}) AS ord
      FROM (${branches.join("\n    UNION ALL ")}) v
     ORDER BY ${order} LIMIT ${limit}${offset}`,
  };
}

/**
 * The page's LIMIT, its size in the text when allowed (LocalizedListQuery.sizeInText) and a placeholder
 * otherwise, and its OFFSET clause: none on the first page, a placeholder on the others.
 */
function pageBounds(list: LocalizedListQuery, params: SqlParams): { limit: string; offset: string } {
  const inText = list.sizeInText && Number.isSafeInteger(list.take) && list.take > 0;
  return {
    limit: inText ? String(list.take) : params.add(list.take),
    offset: list.skip === 0 ? "" : ` OFFSET ${params.add(list.skip)}`,
  };
}

/**
 * A search: the served translation of every post that passes the shared filters (one LEFT JOIN per
 * locale of the chain other than the default, holding its translation only when it passes the status
 * filter; the served one is the first of the chain that joined, the default being the post itself), then
 * the matches' count and page, best match first or by date.
 */
function servedAll(list: LocalizedListQuery, parts: StatementParts): PageParts {
  const { params, shared, at } = parts;
  const { filter, chain } = list;
  const joins: string[] = [];
  const served: { alias: string; locale: string; visible: string }[] = [];
  chain.locales.forEach((code, index) => {
    const locale = params.add(code);
    if (code === chain.defaultCode) {
      served.push({ alias: "p", locale, visible: `(${versionStatus("p", filter.status, at)})` });
      return;
    }
    const alias = `t${index}`;
    joins.push(
      `LEFT JOIN "PostTranslation" ${alias} ON ${alias}."postId" = p.id AND ${alias}.locale = ${locale} AND ${versionStatus(alias, filter.status, at)}`,
    );
    served.push({ alias, locale, visible: `${alias}."postId" IS NOT NULL` });
  });
  const pick = (column: (alias: string, locale: string) => string) =>
    `CASE ${served.map((version) => `WHEN ${version.visible} THEN ${column(version.alias, version.locale)}`).join(" ")} END`;
  // Every version's document, the default's (the post's own) too, is in its locale's configuration.
  const text = list.search ? params.add(list.search) : null;
  const query = text
    ? pick((_alias, locale) => `websearch_to_tsquery(locale_search_config(${locale}::text), ${text})`)
    : null;
  const order =
    list.order === "rank" && query
      ? `ts_rank(s.search, s.q) DESC, s."publishedAt" DESC, s.id`
      : `s."publishedAt" ${list.order === "asc" ? "ASC" : "DESC"}, s.id`;
  const matches = query ? " WHERE s.search @@ s.q" : "";
  const { limit, offset } = pageBounds(list, params);
  return {
    ctes: [
      `served AS MATERIALIZED (
  SELECT p.id, ${pick((_alias, locale) => `${locale}::text`)} AS locale,
         ${pick((alias) => `${alias}."publishedAt"`)} AS "publishedAt"${
           query ? `, ${pick((alias) => `${alias}.search`)} AS search, ${query} AS q` : ""
         }
    FROM "Post" p
    ${joins.join("\n    ")}
   WHERE ${shared} AND (${served.map((version) => version.visible).join(" OR ")}))`,
    ],
    total: `(SELECT count(*)::int FROM served s${matches})`,
    page: `SELECT s.id, s.locale, row_number() OVER (ORDER BY ${order}) AS ord FROM served s${matches}
     ORDER BY ${order} LIMIT ${limit}${offset}`,
  };
}
