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

/** A status filter on the candidate translation `x` (post-visibility.ts's rule, on a translation). */
function versionStatus(status: PostStatusFilter, now: Date, params: SqlParams): string {
  if (status === "all") return "true";
  if (status === "draft") return `x.status = 'draft'::"PostStatus"`;
  const at = `(${params.add(now.toISOString())}::timestamptz AT TIME ZONE 'UTC')`;
  return `x.status = 'published'::"PostStatus" AND x."publishedAt" ${status === "published" ? "<=" : ">"} ${at}`;
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
  const locales = params.add(chain.locales);
  const defaultCode = params.add(chain.defaultCode);
  const status = versionStatus(filter.status, filter.now, params);
  // The default's document is the post's own, built with the English configuration (its migration).
  const query = list.search
    ? `websearch_to_tsquery(CASE WHEN v.locale = ${defaultCode} THEN 'english'::regconfig ELSE locale_search_config(v.locale) END, ${params.add(list.search)})`
    : null;
  const order =
    list.order === "rank" && query
      ? `ts_rank(s.search, s.q) DESC, s."publishedAt" DESC, s.id`
      : `s."publishedAt" ${list.order === "asc" ? "ASC" : "DESC"}, s.id`;
  const statement = `WITH served AS MATERIALIZED (
  SELECT p.id, v.locale, v."publishedAt", v.search${query ? `, ${query} AS q` : ""}
    FROM "Post" p
    CROSS JOIN LATERAL (
      SELECT x.locale, x."publishedAt", x.search FROM (
        SELECT ${defaultCode}::text AS locale, p.status, p."publishedAt", p.search
         WHERE ${defaultCode}::text = ANY(${locales}::text[])
        UNION ALL
        SELECT t.locale, t.status, t."publishedAt", t.search FROM "PostTranslation" t
         WHERE t."postId" = p.id AND t.locale = ANY(${locales}::text[])
      ) x
      WHERE ${status}
      ORDER BY array_position(${locales}::text[], x.locale)
      LIMIT 1
    ) v
   WHERE ${shared})
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
