// Post rows for list pages, read by one hand-written SQL statement when plugin-prisma's plan asks for
// nothing beyond the post read form (the columns, body, category, authors, tags and field values).
//
// Why: the benchmark (bench/README.md) showed Prisma's relation-join query and the mapping of its
// result (JSON per relation, tagged values, one Date per nested timestamp) costing about 60% of the
// service's CPU for a page of 10 posts, and PostgreSQL twice the work of a plain json_build_object
// query. plugin-prisma still plans every request: its plan records which rows answer which fields,
// and this module only stands in for the query that would load them — for the one shape of plan it
// knows, checked to return Prisma's rows (test/graphql/post-rows.test.ts). Any other plan (e.g.
// `tags { count { posts } }`) goes through Prisma as before.
import { isDeepStrictEqual } from "node:util";
import { logHeadExpression } from "../../content/changes/change-log.ts";
import type { PostListing, PostListSql, SqlParams } from "../../content/posts/post-list-sql.ts";
import {
  localesJson,
  type ReadChain,
  type StoredLocale,
} from "../../content/posts/post-translation-reads.ts";
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { statementName } from "../../db/statement-names.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { type FieldDefinitionSummary, fieldDefinitionsJson } from "../loaders.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../pagination.ts";
import { nestedLookup, withNestedChain } from "./nested-locale.ts";
import { type PostRowParts, postColumnsSql, postRowsFrom, postRowsSql } from "./post-rows-sql.ts";
import { POST_AUTHORS_ORDER, POST_COLUMNS, POST_TAGS_ORDER } from "./post-selection.ts";
import { markReadModelRow } from "./read-model-fields.ts";
import type { RelationColumns } from "./relation-columns.ts";
import {
  authorLayout,
  decodeRow as decodePlainRow,
  FIELD_VALUE_LAYOUT,
  type RelationLayout,
  taxonomyLayout,
} from "./relation-layout.ts";
import { withServedLocale } from "./taxonomy-localized.ts";

/** What the read model loads, as the Prisma `select` entries plugin-prisma plans for `Post` fields. */
export const READ_MODEL_SELECT = {
  ...POST_COLUMNS,
  categoryId: true,
  content: true,
  category: true,
  authors: { orderBy: POST_AUTHORS_ORDER, select: { author: true } },
  tags: { orderBy: POST_TAGS_ORDER, select: { tag: true } },
  fieldValues: { select: { fieldId: true, value: true } },
} as const satisfies Prisma.PostSelect;

/** A `findMany` selection as plugin-prisma's `queryFromInfo` plans it for `Post` (select mode). */
export type PlannedPostQuery = { select?: Prisma.PostSelect; include?: Prisma.PostInclude };

/** True when every entry of the planned `select` is one the read model loads, exactly as planned. */
export function readModelCovers(query: PlannedPostQuery): boolean {
  if (!query.select || query.include) return false;
  return Object.entries(query.select).every(
    ([key, value]) =>
      Object.hasOwn(READ_MODEL_SELECT, key) &&
      isDeepStrictEqual(value, READ_MODEL_SELECT[key as keyof typeof READ_MODEL_SELECT]),
  );
}

/** One related row as the statement sends it: its columns' text in the order of its layout. */
type RowArray = (string | null)[];

/**
 * One post as the read model's statements return it (post-rows-sql.ts: POST_COLUMNS_SQL, then the
 * relations the plan asks for as json arrays of text arrays, then the body), beside whatever else the statement reads.
 */
interface PostColumns {
  id: string;
  workspaceId: string;
  slug: string;
  title: string;
  status: string;
  featured: boolean;
  coverImage: string | null;
  description: string | null;
  attribution: unknown;
  publishedAt: number;
  createdAt: number;
  updatedAt: number;
  unpublishAt: number | null;
  categoryId: string;
  category?: RowArray;
  authors?: RowArray[];
  tags?: RowArray[];
  fieldValues?: RowArray[];
  content?: string;
}

/** The parts of the read form `query` asks for (a covered plan: see readModelCovers). */
function partsOf(query: PlannedPostQuery, relationColumns: RelationColumns = "all"): PostRowParts {
  const select = query.select ?? {};
  return {
    content: Boolean(select.content),
    category: Boolean(select.category),
    authors: Boolean(select.authors),
    tags: Boolean(select.tags),
    fieldValues: Boolean(select.fieldValues),
    relationColumns,
  };
}

/** True when a covered plan loads a relation: without one, Prisma's own query is about as cheap. */
export function readModelPays(query: PlannedPostQuery): boolean {
  const parts = partsOf(query);
  return parts.category || parts.authors || parts.tags || parts.fieldValues;
}

/**
 * The workspace's posts with these ids, in the order of `ids`, shaped as Prisma returns them for the
 * plan (Dates for timestamps, `authors: [{ author }]`, `tags: [{ tag }]`, ...); with `relationColumns`
 * "shown", the authors, tags and category hold only the columns the read form shows (relation-columns.ts).
 * Unknown ids are left out; so are ids of another workspace, should a caller ever pass one.
 *
 * With `chain` (posts read in a locale, issue 56), the category's, tags' and authors' names and
 * descriptions (bios) are those of the chain's first locale that has them, their own (the default
 * locale's) last, read in the same statement (nested-locale.ts); each row is marked as read so.
 */
export async function readPostRows(
  sql: SqlExecutor,
  workspaceId: string,
  ids: readonly string[],
  query: PlannedPostQuery,
  relationColumns: RelationColumns = "all",
  chain?: ReadChain,
): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return [];
  // The chain's locales are a parameter only of a statement that reads a category, tags or authors: one
  // that reads none must not be given a parameter it does not name (PostgreSQL refuses the bind).
  const plain = partsOf(query, relationColumns);
  const named = plain.category || plain.authors || plain.tags;
  const lookup = chain && named ? nestedLookup(chain) : [];
  const statement = postRowsSql(lookup.length ? { ...plain, nestedLocales: "$3::text[]" } : plain);
  const rows = await sql.query<PostColumns>(
    statement,
    lookup.length ? [workspaceId, ids, lookup] : [workspaceId, ids],
    { name: statementName(statement) },
  );
  if (!chain) return rows.map(prismaShapeFor(relationColumns));
  const decode = prismaShapeFor(relationColumns, { defaultCode: chain.defaultCode, slot: lookup.length > 0 });
  return rows.map((columns) => withNestedChain(decode(columns), chain, true));
}

/**
 * Page sizes read by one statement (see readPostPage): the default, the largest, and those clients of
 * content APIs commonly ask for (Ghost's default is 15, Strapi's 25). Each is a statement text of its
 * own per filter shape, prepared on every pooled connection it runs on; any page size would let a
 * client make a hundred of them per shape, each holding a plan in PostgreSQL's memory for as long as
 * the connection lives.
 */
export const ONE_STATEMENT_PAGE_SIZES: ReadonlySet<number> = new Set([
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  1,
  5,
  12,
  15,
  20,
  24,
  25,
  30,
  50,
]);

/** A page of posts as readPostPage finds it: where, in which order, which part. */
interface PostPageQuery {
  /** On `"Post" p`. */
  condition: string;
  /** The same posts for the count, as released minus withdrawn (post-list-sql.ts PostListSql); else `condition`. */
  countBy?: PostListSql["count"];
  join: string;
  orderBy: string;
  limit: number;
  offset: number;
  params: SqlParams;
  withFieldDefinitions?: boolean;
  withHead?: boolean;
  /** Read the workspace's locales too (default-locale-facts.ts: the selection asks for a post's locale). */
  withLocales?: boolean;
  /** Count the matching posts (default); false when nobody asked for the total: `totalItems` is then null. */
  withCount?: boolean;
  /**
   * Find the matching posts once for both the count and the page (a MATERIALIZED CTE), rather than
   * once each. For filters whose matches are few and found by lookups (a tag's posts: each one a
   * primary key lookup to check its status and date), it halves that work; for a plain list the
   * count's index-only scan and the page's ordered index scan cost less than materializing every match.
   * Only with `join` empty (the order by publishedAt).
   */
  shareMatches?: boolean;
  /** The count and the ids from another source than `"Post" p` (tagListing); `condition` is then unused. */
  listing?: PostListing | null;
}

interface PostPageRows {
  /** Null when not counted (withCount false). */
  totalItems: number | null;
  items: Record<string, unknown>[];
  fieldDefinitions: FieldDefinitionSummary[] | null;
  head: string | null;
  /** Null when not read (withLocales false). */
  locales: StoredLocale[] | null;
}

/**
 * One page of posts and the number of posts matching `condition` (on `"Post" p`, picked by `join`,
 * `orderBy`, `limit` and `offset`), with `withFieldDefinitions` also the workspace's custom field
 * definitions, which every post's `fields` needs, and with `withHead` the change log head in the same
 * snapshot (what the response cache stores the answer under); the rows as readPostRows reads them.
 *
 * For the common page sizes (ONE_STATEMENT_PAGE_SIZES) one statement does it all, the page size written
 * into its text; for others two: one counts and picks the ids, the second reads their rows. A LIMIT
 * parameter would not do for one statement: PostgreSQL's generic plan assumes a LIMIT parameter keeps
 * 10% of the rows, so it never looks cheaper than a plan made for the values and the whole statement
 * (its rows' joins and aggregates) would be planned afresh on every run, about 1.5 ms here.
 */
export async function readPostPage(
  sql: SqlExecutor,
  workspaceId: string,
  page: PostPageQuery,
  query: PlannedPostQuery,
  relationColumns: RelationColumns = "all",
): Promise<PostPageRows> {
  // Only these integers are ever written into a statement's text.
  if (ONE_STATEMENT_PAGE_SIZES.has(page.limit))
    return readPostPageAtOnce(sql, workspaceId, page, query, relationColumns);
  const { params } = page;
  const { definitions, head, locales } = pageExtras(workspaceId, page);
  // The ids as json: the driver reads them with JSON.parse, where its text[] parser (postgres-array)
  // walked them character by character (about 1% of a list's CPU in the bench's profile).
  const matched = matchedCte(page);
  const statement = `${matched ? `WITH ${matched}\n` : ""}SELECT ${countSql(page)} AS total,
    array_to_json(${pageIdsSql(page, params.add(page.limit))}) AS ids${definitions}${head}${locales}`;
  // Named after its text: the filters in use shape the statement, each shape is prepared once.
  const [row] = await sql.query<{
    total: number;
    ids: string[];
    fieldDefinitions?: FieldDefinitionSummary[];
    head?: string;
    locales?: StoredLocale[];
  }>(statement, params.values, { name: statementName(statement) });
  return {
    totalItems: page.withCount === false ? null : (row?.total ?? 0),
    items: await readPostRows(sql, workspaceId, row?.ids ?? [], query, relationColumns),
    fieldDefinitions: row?.fieldDefinitions ?? null,
    head: row?.head ?? null,
    locales: row?.locales ?? null,
  };
}

/** The page's matches as a CTE of their own, when the page shares them (see shareMatches); else null. */
const matchedCte = (page: PostPageQuery) =>
  page.shareMatches && page.join === "" && !page.listing
    ? `matched AS MATERIALIZED (SELECT p.id, p."publishedAt" FROM "Post" p WHERE ${page.condition})`
    : null;

/** How many posts match the page's condition, as a scalar subquery. */
function countSql(page: PostPageQuery): string {
  if (page.withCount === false) return "NULL::int";
  if (page.listing) return `(SELECT count(*)::int FROM ${page.listing.from} WHERE ${page.listing.where})`;
  if (matchedCte(page)) return "(SELECT count(*)::int FROM matched)";
  const { countBy } = page;
  return countBy
    ? `((SELECT count(*)::int FROM "Post" p WHERE ${countBy.released}) - (SELECT count(*)::int FROM "Post" p WHERE ${countBy.withdrawn}))`
    : `(SELECT count(*)::int FROM "Post" p WHERE ${page.condition})`;
}

/**
 * The page's ids in order as a text[], `limit` a placeholder or a literal integer. The first page has
 * no OFFSET at all, the others an OFFSET placeholder. A placeholder there made PostgreSQL plan the
 * statement afresh on every run: a generic plan must assume it skips a tenth of the rows, which makes
 * it cost more than a plan made for offset 0, so the plan cache never settled on one (a page of 100:
 * 2.9 → 2.4 ms of PostgreSQL's CPU without it, issue 39). Two texts per shape, not one per offset.
 */
function pageIdsSql(page: PostPageQuery, limit: string | number): string {
  const { listing } = page;
  const select = listing
    ? `SELECT ${listing.id} FROM ${listing.from} WHERE ${listing.where} ORDER BY ${listing.orderBy}`
    : matchedCte(page)
      ? `SELECT p.id FROM matched p ORDER BY ${page.orderBy}`
      : `SELECT p.id FROM "Post" p ${page.join} WHERE ${page.condition} ORDER BY ${page.orderBy}`;
  const offset = page.offset === 0 ? "" : ` OFFSET ${page.params.add(page.offset)}`;
  return `ARRAY(${select} LIMIT ${limit}${offset})`;
}

/** The page's optional columns: the field definitions, the log head and the workspace's locales. */
function pageExtras(
  workspaceId: string,
  page: Pick<PostPageQuery, "params" | "withFieldDefinitions" | "withHead" | "withLocales">,
): { definitions: string; head: string; locales: string } {
  const { params } = page;
  return {
    definitions: page.withFieldDefinitions
      ? `, ${fieldDefinitionsJson(params.add(workspaceId))} AS "fieldDefinitions"`
      : "",
    head: page.withHead ? `, ${logHeadExpression(params.add(workspaceId))} AS head` : "",
    locales: page.withLocales ? `, ${localesJson(params.add(workspaceId))} AS locales` : "",
  };
}

/**
 * readPostPage in one statement: the page's ids an array computed once (an InitPlan), which the rows'
 * relations are looked up by exactly as by readPostRows' parameter, so their plan is the same; the count,
 * the definitions and the head on the first row only (a one-row head left-joined to the page's rows, so an
 * empty page still has it).
 */
async function readPostPageAtOnce(
  sql: SqlExecutor,
  workspaceId: string,
  page: PostPageQuery,
  query: PlannedPostQuery,
  relationColumns: RelationColumns,
): Promise<PostPageRows> {
  const { params } = page;
  const { definitions, head, locales } = pageExtras(workspaceId, page);
  const parts = partsOf(query, relationColumns);
  const from = postRowsFrom({
    workspace: params.add(workspaceId),
    // Cast, so that unnest reads one array rather than the rows of a subquery.
    ids: "(SELECT list FROM page_ids)::text[]",
  });
  const matched = matchedCte(page);
  const pageIds = `${matched ? `${matched}, ` : ""}page_ids AS (SELECT ${pageIdsSql(page, page.limit)} AS list)`;
  const first = (column: string) => `CASE WHEN r.ord IS NULL OR r.ord = 1 THEN head.${column} END`;
  // The head's columns first, named apart from the post's (`total`, `fieldDefinitions`, `head`, `locales`).
  const statement = `WITH ${pageIds}
SELECT ${first("total")} AS total${definitions ? `, ${first('"fieldDefinitions"')} AS "fieldDefinitions"` : ""}${
    head ? `, ${first("head")} AS head` : ""
  }${locales ? `, ${first("locales")} AS locales` : ""}, r.*
FROM (SELECT ${countSql(page)} AS total${definitions}${head}${locales}) head
LEFT JOIN (SELECT page.ord, ${postColumnsSql(parts)}
${from}) r ON true
ORDER BY r.ord`;
  const rows = await sql.query<
    {
      total: number | null;
      fieldDefinitions?: FieldDefinitionSummary[] | null;
      head?: string | null;
      locales?: StoredLocale[] | null;
    } & ({ id: null } | PostColumns)
  >(statement, params.values, { name: statementName(statement) });
  const [top] = rows;
  const decode = prismaShapeFor(relationColumns);
  const items: Record<string, unknown>[] = [];
  for (const row of rows) if (row.id !== null) items.push(decode(row as PostColumns));
  return {
    totalItems: page.withCount === false ? null : (top?.total ?? 0),
    items,
    fieldDefinitions: top?.fieldDefinitions ?? null,
    head: top?.head ?? null,
    locales: top?.locales ?? null,
  };
}

/** One post as readSinglePostRow finds it: where (on `"Post" p`), and what else the statement reads. */
interface SinglePostQuery {
  condition: string;
  params: SqlParams;
  withFieldDefinitions?: boolean;
  withHead?: boolean;
  withLocales?: boolean;
}

/**
 * The first post (by id) matching `condition`, in readPostRows' shape, with the workspace's field
 * definitions and the change log head when asked for, in one statement; null when none matches (then
 * neither is read: nothing is answered from them). No count, no page.
 */
export async function readSinglePostRow(
  sql: SqlExecutor,
  workspaceId: string,
  single: SinglePostQuery,
  query: PlannedPostQuery,
  relationColumns: RelationColumns = "all",
): Promise<Omit<PostPageRows, "totalItems" | "items"> & { item: Record<string, unknown> | null }> {
  const { definitions, head, locales } = pageExtras(workspaceId, single);
  const parts = partsOf(query, relationColumns);
  // Ordered by id, so that the row is the same whatever plan PostgreSQL picks.
  const statement = `SELECT ${postColumnsSql(parts)}${definitions}${head}${locales}
FROM "Post" p WHERE ${single.condition}
ORDER BY p.id LIMIT 1`;
  const [row] = await sql.query<
    PostColumns & { fieldDefinitions?: FieldDefinitionSummary[]; head?: string; locales?: StoredLocale[] }
  >(statement, single.params.values, { name: statementName(statement) });
  if (!row) return { item: null, fieldDefinitions: null, head: null, locales: null };
  return {
    item: prismaShapeFor(relationColumns)(row),
    fieldDefinitions: row.fieldDefinitions ?? null,
    head: row.head ?? null,
    locales: row.locales ?? null,
  };
}

/**
 * Prisma's shape for the plan: the post's columns (POST_COLUMNS_SQL), its timestamps as Dates, and only
 * the relations and body the statement read (a plan that does not ask for one has no key for it), each
 * related row decoded from its array (relation-layout.ts). Marked as the read model's: its fields answer
 * without plugin-prisma's per-row bookkeeping (read-model-fields.ts).
 */
function prismaShapeFor(
  relationColumns: RelationColumns,
  /** Read in a locale: the default's code, and whether each related row's array ends with its served locale. */
  served?: { defaultCode: string; slot: boolean },
): (columns: PostColumns) => Record<string, unknown> {
  const authors = authorLayout(relationColumns);
  const taxonomy = taxonomyLayout(relationColumns);
  const decodeRow = served ? servedDecoder(served) : decodePlainRow;
  const wrapped = (rows: RowArray[], layout: RelationLayout, key: string) =>
    rows.map((values) => ({ [key]: decodeRow(layout, values) }));
  return (columns) => {
    const row: Record<string, unknown> = {
      id: columns.id,
      workspaceId: columns.workspaceId,
      slug: columns.slug,
      title: columns.title,
      status: columns.status,
      featured: columns.featured,
      coverImage: columns.coverImage,
      description: columns.description,
      attribution: columns.attribution,
      publishedAt: new Date(columns.publishedAt),
      createdAt: new Date(columns.createdAt),
      updatedAt: new Date(columns.updatedAt),
      unpublishAt: columns.unpublishAt === null ? null : new Date(columns.unpublishAt),
      categoryId: columns.categoryId,
    };
    if (columns.category !== undefined) row.category = decodeRow(taxonomy, columns.category);
    if (columns.authors !== undefined) row.authors = wrapped(columns.authors, authors, "author");
    if (columns.tags !== undefined) row.tags = wrapped(columns.tags, taxonomy, "tag");
    if (columns.fieldValues !== undefined)
      row.fieldValues = columns.fieldValues.map((values) => decodePlainRow(FIELD_VALUE_LAYOUT, values));
    if (columns.content !== undefined) row.content = columns.content;
    markReadModelRow(row);
    return row;
  };
}

/**
 * decodeRow of a related row read in a locale: marked with the locale that served its names (its array's
 * last slot, when the statement looked translations up; else, or null there, the default locale).
 */
function servedDecoder(served: { defaultCode: string; slot: boolean }) {
  return (layout: RelationLayout, values: readonly (string | null)[]): Record<string, unknown> =>
    withServedLocale(
      decodePlainRow(layout, values),
      (served.slot ? values[layout.length] : null) ?? served.defaultCode,
    );
}
