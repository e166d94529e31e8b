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
import { logHeadExpression } from "../content/change-log.ts";
import type { SqlParams } from "../content/post-list-sql.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { statementName } from "../db/statement-names.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { type FieldDefinitionSummary, fieldDefinitionsJson } from "./loaders.ts";
import { type PostRowParts, postRowsSql } from "./post-rows-sql.ts";
import { POST_AUTHORS_ORDER, POST_COLUMNS, POST_TAGS_ORDER } from "./post-selection.ts";
import { markReadModelRow } from "./read-model-fields.ts";
import type { RelationColumns } from "./relation-columns.ts";

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

/** Timestamps arrive as milliseconds since the epoch (post-rows-sql.ts); relations' only with all columns. */
interface TimestampedJson {
  createdAt?: number;
  updatedAt?: number;
}
interface PostJson {
  createdAt: number;
  updatedAt: number;
  publishedAt: number;
  category?: TimestampedJson;
  authors?: { author: TimestampedJson }[];
  tags?: { tag: TimestampedJson }[];
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
 */
export async function readPostRows(
  sql: SqlExecutor,
  workspaceId: string,
  ids: readonly string[],
  query: PlannedPostQuery,
  relationColumns: RelationColumns = "all",
): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return [];
  const statement = postRowsSql(partsOf(query, relationColumns));
  const rows = await sql.query<{ post: PostJson; content?: string }>(statement, [workspaceId, ids], {
    name: statementName(statement),
  });
  return rows.map(toPrismaShape);
}

/**
 * One page of posts and the number of posts matching `condition` (on `"Post" p`): one statement counts
 * and picks the page's ids (by `condition`, `join`, `orderBy`, `limit`, `offset`), and with
 * `withFieldDefinitions` also reads the workspace's custom field definitions, which every post's
 * `fields` needs, and with `withHead` the change log head in the same snapshot (what the response
 * cache stores the answer under); a second reads their rows as readPostRows does. Two, not one:
 * PostgreSQL plans a statement with a LIMIT parameter afresh on every run here (its generic plan
 * assumes the LIMIT keeps 10% of the rows, so it never looks cheaper), which costs little for the ids
 * and much for the rows; the rows' statement keeps one plan.
 */
export async function readPostPage(
  sql: SqlExecutor,
  workspaceId: string,
  page: {
    condition: string;
    join: string;
    orderBy: string;
    limit: number;
    offset: number;
    params: SqlParams;
    withFieldDefinitions?: boolean;
    withHead?: boolean;
  },
  query: PlannedPostQuery,
  relationColumns: RelationColumns = "all",
): Promise<{
  totalItems: number;
  items: Record<string, unknown>[];
  fieldDefinitions: FieldDefinitionSummary[] | null;
  head: string | null;
}> {
  const { params } = page;
  const definitions = page.withFieldDefinitions
    ? `, ${fieldDefinitionsJson(params.add(workspaceId))} AS "fieldDefinitions"`
    : "";
  const head = page.withHead ? `, ${logHeadExpression(params.add(workspaceId))} AS head` : "";
  // The ids as json: the driver reads them with JSON.parse, where its text[] parser (postgres-array)
  // walked them character by character (about 1% of a list's CPU in the bench's profile).
  const statement = `SELECT (SELECT count(*)::int FROM "Post" p WHERE ${page.condition}) AS total,
    array_to_json(ARRAY(SELECT p.id FROM "Post" p ${page.join} WHERE ${page.condition}
          ORDER BY ${page.orderBy} LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)})) AS ids${definitions}${head}`;
  // Named after its text: the filters in use shape the statement, each shape is prepared once.
  const [row] = await sql.query<{
    total: number;
    ids: string[];
    fieldDefinitions?: FieldDefinitionSummary[];
    head?: string;
  }>(statement, params.values, { name: statementName(statement) });
  return {
    totalItems: row?.total ?? 0,
    items: await readPostRows(sql, workspaceId, row?.ids ?? [], query, relationColumns),
    fieldDefinitions: row?.fieldDefinitions ?? null,
    head: row?.head ?? null,
  };
}

/**
 * Prisma's shape, made in place: the rows were just parsed from the statement's json and belong to no
 * one else, so only the timestamps change (epoch milliseconds become Dates) and the body, read as a
 * column of its own, joins its row; nothing is copied. Marked as the read model's: its fields answer
 * without plugin-prisma's per-row bookkeeping (read-model-fields.ts).
 */
function toPrismaShape({ post, content }: { post: PostJson; content?: string }): Record<string, unknown> {
  const row = post as unknown as Record<string, unknown>;
  if (content !== undefined) row.content = content;
  row.publishedAt = new Date(post.publishedAt);
  row.createdAt = new Date(post.createdAt);
  row.updatedAt = new Date(post.updatedAt);
  if (post.category) withDates(post.category);
  if (post.authors) for (const { author } of post.authors) withDates(author);
  if (post.tags) for (const { tag } of post.tags) withDates(tag);
  markReadModelRow(row);
  return row;
}

/** A relation's timestamps, when it has them (all columns loaded). */
function withDates(row: TimestampedJson): void {
  if (row.createdAt === undefined || row.updatedAt === undefined) return;
  const record = row as unknown as Record<string, unknown>;
  record.createdAt = new Date(row.createdAt);
  record.updatedAt = new Date(row.updatedAt);
}
