// Post rows for list pages, read by one hand-written SQL statement when plugin-prisma's plan asks for
// nothing beyond the post read form (the columns, body, category, authors, tags and field values).
//
// Why: the benchmark (bench/README.md) showed Prisma's relation-join query and the mapping of its
// result (JSON per relation, tagged values, one Date per nested timestamp) costing about 60% of the
// service's CPU for a page of 10 posts, and PostgreSQL twice the work of a plain json_build_object
// query. plugin-prisma still plans every request: its plan records which rows answer which fields,
// and this module only stands in for the query that would load them — for the one shape of plan it
// knows, proven to return Prisma's rows exactly (test/graphql/post-rows.test.ts). Any other plan
// (e.g. `tags { count { posts } }`) goes through Prisma as before.
import { isDeepStrictEqual } from "node:util";
import type { SqlParams } from "../content/post-list-sql.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { statementName } from "../db/statement-names.ts";
import type { Prisma } from "../generated/prisma/client.ts";

/** What the read model loads, as the Prisma `select` entries plugin-prisma plans for `Post` fields. */
export const READ_MODEL_SELECT = {
  id: true,
  workspaceId: true,
  slug: true,
  title: true,
  status: true,
  featured: true,
  coverImage: true,
  description: true,
  attribution: true,
  publishedAt: true,
  createdAt: true,
  updatedAt: true,
  categoryId: true,
  content: true,
  category: true,
  authors: { orderBy: { position: "asc" }, select: { author: true } },
  tags: { orderBy: { tag: { name: "asc" } }, select: { tag: true } },
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

const TAXONOMY_JSON = (alias: string) =>
  `json_build_object('id', ${alias}.id, 'workspaceId', ${alias}."workspaceId", 'name', ${alias}.name,
     'slug', ${alias}.slug, 'description', ${alias}.description, 'createdAt', ${alias}."createdAt",
     'updatedAt', ${alias}."updatedAt")`;

/**
 * The rows of the posts whose ids the text[] `pageIds` lists, as one json array in that order. json (not jsonb) objects: nothing is compared or indexed, and building json is the
 * cheaper of the two. Relations are aggregated for the whole page at once (one join each, not one
 * subquery per post). `withContent` leaves the body out when the plan does not ask for it.
 */
function postRowsSql(pageIds: string, withContent: string): string {
  return `
WITH page AS (
  SELECT id, ord FROM unnest(${pageIds}) WITH ORDINALITY AS page(id, ord)
), authors AS (
  SELECT pa."postId", json_agg(json_build_object('author', json_build_object(
           'id', a.id, 'workspaceId', a."workspaceId", 'name', a.name, 'slug', a.slug, 'image', a.image,
           'bio', a.bio, 'role', a.role, 'email', a.email, 'socials', a.socials,
           'createdAt', a."createdAt", 'updatedAt', a."updatedAt")) ORDER BY pa.position) AS list
    FROM "PostAuthor" pa JOIN "Author" a ON a.id = pa."authorId"
   WHERE pa."postId" IN (SELECT id FROM page)
   GROUP BY pa."postId"
), tags AS (
  SELECT pt."postId", json_agg(json_build_object('tag', ${TAXONOMY_JSON("t")}) ORDER BY t.name) AS list
    FROM "PostTag" pt JOIN "Tag" t ON t.id = pt."tagId"
   WHERE pt."postId" IN (SELECT id FROM page)
   GROUP BY pt."postId"
), field_values AS (
  SELECT v."postId", json_agg(json_build_object('fieldId', v."fieldId", 'value', v.value)) AS list
    FROM "PostFieldValue" v
   WHERE v."postId" IN (SELECT id FROM page)
   GROUP BY v."postId"
)
SELECT json_agg(json_build_object(
  'id', p.id, 'workspaceId', p."workspaceId", 'slug', p.slug, 'title', p.title, 'status', p.status,
  'featured', p.featured, 'coverImage', p."coverImage", 'description', p.description,
  'attribution', p.attribution, 'publishedAt', p."publishedAt", 'createdAt', p."createdAt",
  'updatedAt', p."updatedAt", 'categoryId', p."categoryId",
  'content', CASE WHEN ${withContent}::boolean THEN p.content END,
  'category', ${TAXONOMY_JSON("c")},
  'authors', coalesce(au.list, '[]'), 'tags', coalesce(tg.list, '[]'), 'fieldValues', coalesce(fv.list, '[]')
) ORDER BY page.ord)
FROM page
JOIN "Post" p ON p.id = page.id
JOIN "Category" c ON c.id = p."categoryId"
LEFT JOIN authors au ON au."postId" = p.id
LEFT JOIN tags tg ON tg."postId" = p.id
LEFT JOIN field_values fv ON fv."postId" = p.id`;
}

const POST_ROWS_BY_IDS_SQL = `SELECT (${postRowsSql("$1::text[]", "$2")}) AS posts`;

interface TimestampedJson {
  createdAt: string | Date;
  updatedAt: string | Date;
}
interface PostJson extends TimestampedJson {
  id: string;
  publishedAt: string | Date;
  content: string | null;
  category: TimestampedJson;
  authors: { author: TimestampedJson }[];
  tags: { tag: TimestampedJson }[];
}

/**
 * The posts with these ids, in the order of `ids`, shaped as Prisma returns them for the read model's
 * selection (Dates for timestamps, `authors: [{ author }]`, `tags: [{ tag }]`, ...). Unknown ids are
 * left out.
 */
export async function readPostRows(
  sql: SqlExecutor,
  ids: readonly string[],
  query: PlannedPostQuery,
): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return [];
  const withContent = query.select?.content === true;
  const [row] = await sql.query<{ posts: PostJson[] | null }>(POST_ROWS_BY_IDS_SQL, [ids, withContent], {
    name: "post_rows_by_ids",
  });
  return (row?.posts ?? []).map((post) => toPrismaShape(post, withContent));
}

/**
 * One page of posts and the number of posts matching `condition` (on `"Post" p`): one statement counts
 * and picks the page's ids (by `condition`, `join`, `orderBy`, `limit`, `offset`), a second reads their
 * rows as readPostRows does. Two, not one: a statement with a LIMIT parameter gets a fresh plan on every
 * run, which is cheap for the ids and costly for the rows; the rows' statement keeps its plan.
 */
export async function readPostPage(
  sql: SqlExecutor,
  page: {
    condition: string;
    join: string;
    orderBy: string;
    limit: number;
    offset: number;
    params: SqlParams;
  },
  query: PlannedPostQuery,
): Promise<{ totalItems: number; items: Record<string, unknown>[] }> {
  const { params } = page;
  const statement = `SELECT (SELECT count(*)::int FROM "Post" p WHERE ${page.condition}) AS total,
    ARRAY(SELECT p.id FROM "Post" p ${page.join} WHERE ${page.condition}
          ORDER BY ${page.orderBy} LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}) AS ids`;
  // Named after its text: the filters in use shape the statement, each shape is prepared once.
  const [row] = await sql.query<{ total: number; ids: string[] }>(statement, params.values, {
    name: statementName(statement),
  });
  return { totalItems: row?.total ?? 0, items: await readPostRows(sql, row?.ids ?? [], query) };
}

function toPrismaShape(post: PostJson, withContent: boolean): Record<string, unknown> {
  const { content, ...rest } = post;
  return {
    ...rest,
    ...(withContent ? { content } : {}),
    publishedAt: timestamp(post.publishedAt),
    ...timestamps(post),
    category: { ...post.category, ...timestamps(post.category) },
    authors: post.authors.map(({ author }) => ({ author: { ...author, ...timestamps(author) } })),
    tags: post.tags.map(({ tag }) => ({ tag: { ...tag, ...timestamps(tag) } })),
  };
}

function timestamps(row: TimestampedJson): { createdAt: Date; updatedAt: Date } {
  return { createdAt: timestamp(row.createdAt), updatedAt: timestamp(row.updatedAt) };
}

/** Prisma's DateTime columns are `timestamp(3)` in UTC; json renders them without a zone. */
function timestamp(value: string | Date): Date {
  if (value instanceof Date) return value;
  return new Date(value.endsWith("Z") ? value : `${value}Z`);
}
