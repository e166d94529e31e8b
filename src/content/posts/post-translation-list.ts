// A post list in a locale (issue 56): every filter, the search, the order and the count run, in SQL, on
// the translation each post would be served (post-translation-reads.ts: the first of the chain that
// passes the status filter), so `totalItems` is the number of posts one can page through and fetch one
// by one with the same locale. Shared fields (category, tags, featured) are the post's; status,
// publication date and the search document are the served translation's. One statement: the served
// translation of every post of the workspace that passes the shared filters, then its count and page.
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { statementName } from "../../db/statement-names.ts";
import type { PostListFilter, PostStatusFilter } from "./post-filters.ts";
import { postListCondition, SqlParams } from "./post-list-sql.ts";
import type { ReadChain } from "./post-translation-reads.ts";

export interface LocalizedListQuery {
  filter: Omit<PostListFilter, "matchingIds">;
  chain: ReadChain;
  /** The search text (web-search syntax), matched against the served translation's document. */
  search: string | null;
  /** By publishedAt, or best match first (only with a search). */
  order: "asc" | "desc" | "rank";
  skip: number;
  take: number;
}

/** The page's posts and the locale each is served in, and how many posts the list holds. */
export interface LocalizedListPage {
  total: number;
  page: { id: string; locale: string }[];
}

/** A status filter on a translation aliased `alias` (post-visibility.ts's rule, on a translation). */
function versionStatus(alias: string, status: PostStatusFilter, at: () => string): string {
  if (status === "all") return "true";
  if (status === "draft") return `${alias}.status = 'draft'::"PostStatus"`;
  return `${alias}.status = 'published'::"PostStatus" AND ${alias}."publishedAt" ${status === "published" ? "<=" : ">"} ${at()}`;
}

export async function localizedPostPage(
  sql: SqlExecutor,
  workspaceId: string,
  list: LocalizedListQuery,
): Promise<LocalizedListPage> {
  const params = new SqlParams();
  const { filter, chain } = list;
  // The shared filters, on the post itself: its status is no longer the list's (the translation's is).
  const shared = postListCondition(workspaceId, { ...filter, status: "all", matchingIds: null }, params);
  // The moment, a parameter once when a status filter needs it (an unused one has no type to infer).
  let moment: string | null = null;
  const at = () => {
    moment ??= `(${params.add(filter.now.toISOString())}::timestamptz AT TIME ZONE 'UTC')`;
    return moment;
  };
  // One LEFT JOIN per locale of the chain other than the default, holding its translation only when it
  // passes the status filter (an index lookup by primary key each); the served one is the first of the
  // chain that joined (the default: the post itself, when it passes). Measured against a LATERAL pick
  // of the first, which sorted each post's candidates: bench/translation-list-requests.ts.
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
  // The default's document is the post's own, built with the English configuration (its migration).
  const config = (alias: string, locale: string) =>
    alias === "p" ? "'english'::regconfig" : `locale_search_config(${locale}::text)`;
  const text = list.search ? params.add(list.search) : null;
  const query = text
    ? pick((alias, locale) => `websearch_to_tsquery(${config(alias, locale)}, ${text})`)
    : null;
  const order =
    list.order === "rank" && query
      ? `ts_rank(s.search, s.q) DESC, s."publishedAt" DESC, s.id`
      : `s."publishedAt" ${list.order === "asc" ? "ASC" : "DESC"}, s.id`;
  const statement = `WITH served AS MATERIALIZED (
  SELECT p.id, ${pick((_alias, locale) => `${locale}::text`)} AS locale,
         ${pick((alias) => `${alias}."publishedAt"`)} AS "publishedAt"${
           query ? `, ${pick((alias) => `${alias}.search`)} AS search, ${query} AS q` : ""
         }
    FROM "Post" p
    ${joins.join("\n    ")}
   WHERE ${shared} AND (${served.map((version) => version.visible).join(" OR ")}))
SELECT (SELECT count(*)::int FROM served s${query ? " WHERE s.search @@ s.q" : ""}) AS total,
  (SELECT json_agg(json_build_object('id', s.id, 'locale', s.locale) ORDER BY s.ord)
     FROM (SELECT s.id, s.locale, row_number() OVER (ORDER BY ${order}) AS ord FROM served s
            ${query ? "WHERE s.search @@ s.q" : ""} ORDER BY ${order} LIMIT ${params.add(list.take)} OFFSET ${params.add(list.skip)}) s) AS page`;
  const [row] = await sql.query<{ total: number; page: { id: string; locale: string }[] | string | null }>(
    statement,
    params.values,
    { name: statementName(statement) },
  );
  const page = typeof row?.page === "string" ? JSON.parse(row.page) : (row?.page ?? []);
  return { total: row?.total ?? 0, page };
}
