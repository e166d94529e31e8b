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
import type { SqlExecutor } from "../db/sql-executor.ts";
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

// json (not jsonb) objects: nothing is compared or indexed, and building json is the cheaper of the two.
// Relations are aggregated for the whole page at once (one join each, not one subquery per post).
// `$2` leaves the body out when the plan does not ask for it (a title list need not read the bodies).
const POST_ROWS_SQL = `
WITH authors AS (
  SELECT pa."postId", json_agg(json_build_object('author', json_build_object(
           'id', a.id, 'workspaceId', a."workspaceId", 'name', a.name, 'slug', a.slug, 'image', a.image,
           'bio', a.bio, 'role', a.role, 'email', a.email, 'socials', a.socials,
           'createdAt', a."createdAt", 'updatedAt', a."updatedAt")) ORDER BY pa.position) AS list
    FROM "PostAuthor" pa JOIN "Author" a ON a.id = pa."authorId"
   WHERE pa."postId" = ANY($1::text[])
   GROUP BY pa."postId"
), tags AS (
  SELECT pt."postId", json_agg(json_build_object('tag', ${TAXONOMY_JSON("t")}) ORDER BY t.name) AS list
    FROM "PostTag" pt JOIN "Tag" t ON t.id = pt."tagId"
   WHERE pt."postId" = ANY($1::text[])
   GROUP BY pt."postId"
), field_values AS (
  SELECT v."postId", json_agg(json_build_object('fieldId', v."fieldId", 'value', v.value)) AS list
    FROM "PostFieldValue" v
   WHERE v."postId" = ANY($1::text[])
   GROUP BY v."postId"
)
SELECT json_build_object(
  'id', p.id, 'workspaceId', p."workspaceId", 'slug', p.slug, 'title', p.title, 'status', p.status,
  'featured', p.featured, 'coverImage', p."coverImage", 'description', p.description,
  'attribution', p.attribution, 'publishedAt', p."publishedAt", 'createdAt', p."createdAt",
  'updatedAt', p."updatedAt", 'categoryId', p."categoryId",
  'content', CASE WHEN $2::boolean THEN p.content END,
  'category', ${TAXONOMY_JSON("c")},
  'authors', coalesce(au.list, '[]'), 'tags', coalesce(tg.list, '[]'), 'fieldValues', coalesce(fv.list, '[]')
) AS post
FROM "Post" p
JOIN "Category" c ON c.id = p."categoryId"
LEFT JOIN authors au ON au."postId" = p.id
LEFT JOIN tags tg ON tg."postId" = p.id
LEFT JOIN field_values fv ON fv."postId" = p.id
WHERE p.id = ANY($1::text[])`;

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
 * selection (Dates for timestamps, `authors: [{ author }]`, `tags: [{ tag }]`, ...).
 */
export async function readPostRows(
  sql: SqlExecutor,
  ids: readonly string[],
  query: PlannedPostQuery,
): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return [];
  const withContent = query.select?.content === true;
  const rows = await sql.query<{ post: PostJson }>(POST_ROWS_SQL, [ids, withContent], {
    name: "post_rows",
  });
  const byId = new Map(rows.map(({ post }) => [post.id, post]));
  return ids.flatMap((id) => {
    const post = byId.get(id);
    return post ? [toPrismaShape(post, withContent)] : [];
  });
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
