// The SQL of the post read model (post-rows.ts): a post's columns in the read form, with only the parts
// the plan asks for, and the rows of a list of post ids. One text per shape of plan, built once.
import type { RelationColumns } from "./relation-columns.ts";
import {
  authorLayout,
  FIELD_VALUE_LAYOUT,
  localizedRowArraySql,
  type RelationLayout,
  rowArraySql,
  taxonomyLayout,
} from "./relation-layout.ts";

/**
 * Where a rows statement finds its posts: the workspace's placeholder and an expression of the ids as a
 * text[] (a parameter, or the page's own ids computed in the same statement: post-rows.ts).
 */
export interface PostIdsSource {
  workspace: string;
  ids: string;
}

/** The rows of the ids in a text[] parameter: `$1` the workspace, `$2` the ids. */
export const IDS_PARAMETER: PostIdsSource = { workspace: "$1", ids: "$2::text[]" };

/** Which parts of the read form a plan asks for. */
export interface PostRowParts {
  content: boolean;
  category: boolean;
  authors: boolean;
  tags: boolean;
  fieldValues: boolean;
  /** Every column of the authors, tags and category, or only those the read form shows (relation-columns.ts). */
  relationColumns: RelationColumns;
  /**
   * A post read in a locale (issue 56): the placeholder of a text[] of the locales whose names the
   * category, tags and authors are served in, tried in order before their own (the default locale's);
   * each related row's array then ends with the locale that served it (null: its own). Absent: the
   * records' own names, the statement as it always was.
   */
  nestedLocales?: string;
}

// Each relation as a correlated subquery of the post `p`: for the rows of a page, a few index lookups per
// post, built as arrays of text (relation-layout.ts). Measured against aggregating each relation for the
// whole page at once (one join per relation, grouped by post, joined back): with json objects the
// aggregates were cheaper, with text arrays the per-post lookups are (a page of 100: 2.8 against
// 3.4 ms of PostgreSQL CPU; a page of 10: 0.63 against 0.80 ms), and they plan the same without
// statistics (each is a primary-key prefix lookup).
const CATEGORY_SQL = (columns: RelationColumns, locales?: string) =>
  `(SELECT array_to_json(${relationRow(taxonomyLayout(columns), "c", locales, "description")}) FROM "Category" c${served("c", locales, "CategoryTranslation", "categoryId", "description")} WHERE c.id = p."categoryId")`;
const AUTHORS_SQL = (columns: RelationColumns, locales?: string) =>
  `array_to_json(ARRAY(SELECT ${relationRow(authorLayout(columns), "a", locales, "bio")}
     FROM "PostAuthor" pa JOIN "Author" a ON a.id = pa."authorId"${served("a", locales, "AuthorTranslation", "authorId", "bio")} WHERE pa."postId" = p.id ORDER BY pa.position))`;
// By name, ties by id: the order of Post.tags' Prisma plan (schema/post.ts); in a locale, by the name served.
const TAGS_SQL = (columns: RelationColumns, locales?: string) =>
  `array_to_json(ARRAY(SELECT ${relationRow(taxonomyLayout(columns), "t", locales, "description")}
     FROM "PostTag" pt JOIN "Tag" t ON t.id = pt."tagId"${served("t", locales, "TagTranslation", "tagId", "description")} WHERE pt."postId" = p.id ORDER BY ${
       locales ? "coalesce(t_tr.name, t.name)" : "t.name"
     }, t.id))`;

/** A related row `alias` as its array: its own columns, or, in a locale, those served (localizedRowArraySql). */
function relationRow(
  layout: RelationLayout,
  alias: string,
  locales: string | undefined,
  text: "description" | "bio",
): string {
  return locales ? localizedRowArraySql(layout, alias, `${alias}_tr`, text) : rowArraySql(layout, alias);
}

/**
 * In a locale: the record's translation `<alias>_tr` in the first of `locales` that has one (a primary
 * key lookup per locale), or none (its own names then).
 */
function served(
  alias: string,
  locales: string | undefined,
  table: string,
  record: string,
  text: "description" | "bio",
): string {
  if (!locales) return "";
  return ` LEFT JOIN LATERAL (SELECT x.locale, x.name, x."${text}" FROM "${table}" x
       WHERE x."${record}" = ${alias}.id AND x.locale = ANY(${locales})
       ORDER BY array_position(${locales}, x.locale) LIMIT 1) ${alias}_tr ON true`;
}

const FIELD_VALUES_SQL = `array_to_json(ARRAY(SELECT ${rowArraySql(FIELD_VALUE_LAYOUT, "v")}
     FROM "PostFieldValue" v WHERE v."postId" = p.id))`;

// The post's own columns in the read form, as columns of the statement: json built for each row costs
// PostgreSQL more than the columns themselves (about 0.7 ms of CPU for a page of 100, issue 39), and
// the driver reads text columns without a JSON.parse. Timestamps as milliseconds since the epoch in a
// double precision column (a number in both drivers, where int8 would arrive as a string or a BigInt),
// rounded to whole milliseconds as the columns hold them.
const epochMsColumn = (column: string, name: string) =>
  `round(date_part('epoch', ${column}) * 1000) AS "${name}"`;
const POST_COLUMNS_SQL = `p.id, p."workspaceId", p.slug, p.title, p.status, p.featured, p."coverImage",
     p.description, p.attribution, ${epochMsColumn('p."publishedAt"', "publishedAt")},
     ${epochMsColumn('p."createdAt"', "createdAt")}, ${epochMsColumn('p."updatedAt"', "updatedAt")},
     ${epochMsColumn('p."unpublishAt"', "unpublishAt")}, p."categoryId"`;

/**
 * The posts of workspace `$1` whose ids the text[] `$2` lists, one row each in that order (unknown ids,
 * and ids of other workspaces, left out), with the columns of postColumnsSql.
 */
export function postRowsSql(parts: PostRowParts): string {
  const key = JSON.stringify(parts);
  let sql = built.get(key);
  if (!sql) {
    sql = `SELECT ${postColumnsSql(parts)}\n${postRowsFrom(IDS_PARAMETER)}\nORDER BY page.ord`;
    built.set(key, sql);
  }
  return sql;
}
const built = new Map<string, string>();

/**
 * The FROM of a page's rows: `page` (the ids with their position `ord`) and each one's post `p` of the
 * workspace, for a statement of the caller's to compose with postColumnsSql.
 */
export const postRowsFrom = ({ ids, workspace }: PostIdsSource): string =>
  `FROM unnest(${ids}) WITH ORDINALITY AS page(id, ord)
JOIN "Post" p ON p.id = page.id AND p."workspaceId" = ${workspace}`;

/**
 * The columns of one post `p` in the read form: the post's own columns (POST_COLUMNS_SQL), each relation
 * the plan asks for as a json column named after it (arrays of text: relation-layout.ts), and `content`,
 * the body, when the plan asks for it. A body inside json would be escaped by PostgreSQL and unescaped
 * by the driver only to be escaped again in the answer; as text it arrives as it is stored (with the
 * rows of a page of 100 bodies, the statement took about a third less time).
 */
export function postColumnsSql(parts: PostRowParts): string {
  const key = JSON.stringify(parts);
  let columns = builtColumns.get(key);
  if (!columns) {
    const list = [POST_COLUMNS_SQL];
    const { relationColumns, nestedLocales } = parts;
    if (parts.category) list.push(`${CATEGORY_SQL(relationColumns, nestedLocales)} AS category`);
    if (parts.authors) list.push(`${AUTHORS_SQL(relationColumns, nestedLocales)} AS authors`);
    if (parts.tags) list.push(`${TAGS_SQL(relationColumns, nestedLocales)} AS tags`);
    if (parts.fieldValues) list.push(`${FIELD_VALUES_SQL} AS "fieldValues"`);
    if (parts.content) list.push("p.content");
    columns = list.join(", ");
    builtColumns.set(key, columns);
  }
  return columns;
}
const builtColumns = new Map<string, string>();
