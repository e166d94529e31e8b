// A post and everything attached to it (authors in order, tags, custom field values) written in ONE
// statement: data-modifying CTEs run atomically, so no transaction round trips are needed either.

import type { FieldValueChanges } from "../taxonomy/custom-field-values.ts";
import type { WriteClient } from "../writer.ts";

export interface PostRowInsert {
  id: string;
  workspaceId: string;
  slug: string;
  title: string;
  status: "published" | "draft";
  featured: boolean;
  coverImage: string | null;
  description: string;
  content: string;
  attribution: string | null;
  publishedAt: Date;
  /** A scheduled unpublish (post-release.ts), or null. */
  unpublishAt: Date | null;
  categoryId: string;
  tagIds: string[];
  authorIds: string[];
  fieldValues: FieldValueChanges;
}

/**
 * The post's releasedAt after a write, as SQL: a post public now (post-visibility.ts) keeps the moment
 * it went public, or goes public at `now`; a draft or a scheduled post has none, so the scheduler
 * (scheduler.ts) releases it when it is due. Computed by the statement, so the write and its events
 * (posts.ts) agree with what is stored.
 */
function releasedAt(status: string, publishedAt: string, previous: string, now: string): string {
  return `CASE WHEN ${status} = 'published' AND ${publishedAt} <= ${now} THEN COALESCE(${previous}, ${now}) END`;
}

const INSERT_SQL = `
WITH post AS (
  INSERT INTO "Post" (id, "workspaceId", slug, title, status, featured, "coverImage", description, content, attribution,
                      "publishedAt", "createdAt", "updatedAt", "categoryId", "releasedAt", "unpublishAt")
  VALUES ($1, $2, $3, $4, $5::"PostStatus", $6, $7, $8, $9, $10, $11::timestamp(3), $12::timestamp(3), $12::timestamp(3), $13,
          ${releasedAt('$5::"PostStatus"', "$11::timestamp(3)", "NULL::timestamp(3)", "$12::timestamp(3)")}, $17::timestamp(3))
  RETURNING id, "releasedAt" IS NOT NULL AS released
), authors AS (
  INSERT INTO "PostAuthor" ("postId", "authorId", position)
  SELECT post.id, a.id, a.ord - 1 FROM post, unnest($14::text[]) WITH ORDINALITY AS a(id, ord)
), tags AS (
  INSERT INTO "PostTag" ("postId", "tagId") SELECT post.id, t.id FROM post, unnest($15::text[]) AS t(id)
), field_values AS (
  INSERT INTO "PostFieldValue" ("postId", "fieldId", value)
  SELECT post.id, v.key, v.value FROM post, jsonb_each($16::jsonb) AS v(key, value)
)
SELECT id, released FROM post`;

/** A unit of work's client (writer.ts): these statements run only inside a write's transaction. */
type Queryable = Pick<WriteClient, "$queryRawUnsafe">;

/** Returns whether the post is public (released) after the insert. */
export async function insertPostRow(tx: Queryable, row: PostRowInsert): Promise<{ released: boolean }> {
  const [inserted] = await tx.$queryRawUnsafe<{ released: boolean }[]>(
    INSERT_SQL,
    row.id,
    row.workspaceId,
    row.slug,
    row.title,
    row.status,
    row.featured,
    row.coverImage,
    row.description,
    row.content,
    row.attribution,
    utc(row.publishedAt),
    utc(new Date()),
    row.categoryId,
    row.authorIds,
    row.tagIds,
    JSON.stringify(Object.fromEntries(row.fieldValues.set)),
    row.unpublishAt ? utc(row.unpublishAt) : null,
  );
  return { released: inserted?.released === true };
}

export interface PostRowUpdate {
  id: string;
  title?: string;
  slug?: string;
  description?: string;
  content?: string;
  status?: "published" | "draft";
  featured?: boolean;
  /** undefined = keep; null = clear. */
  coverImage?: string | null;
  attribution?: string | null;
  publishedAt?: Date;
  /** undefined = keep; null = clear. */
  unpublishAt?: Date | null;
  categoryId?: string;
  /** When given, the whole set is replaced (authors keep the given order). */
  tagIds?: string[];
  authorIds?: string[];
  fieldValues?: FieldValueChanges;
}

// Replacing a set removes what is no longer in it and upserts the rest, so no statement ever deletes
// and re-inserts the same row (CTEs share one snapshot and could not see each other's changes). What is
// attached is inserted only alongside an updated post row: a post deleted meanwhile updates nothing,
// and the statement returns no row instead of failing on a foreign key. An update that replaces no set
// and sets no custom field value (an editor's draft save: title, body) sends the post's UPDATE alone:
// the same row change without six empty parts to parse and plan, which on the embedded database
// happens on the thread that serves requests, at every write.
const UPDATE_POST_SQL = `
  UPDATE "Post" SET
    title = COALESCE($2, title),
    slug = COALESCE($3, slug),
    description = COALESCE($4, description),
    content = COALESCE($5, content),
    status = COALESCE($6::"PostStatus", status),
    featured = COALESCE($7, featured),
    "coverImage" = CASE WHEN $8 THEN $9 ELSE "coverImage" END,
    attribution = CASE WHEN $10 THEN $11 ELSE attribution END,
    "publishedAt" = COALESCE($12::timestamp(3), "publishedAt"),
    "categoryId" = COALESCE($13, "categoryId"),
    "updatedAt" = $14::timestamp(3),
    "unpublishAt" = CASE WHEN $15 THEN $16::timestamp(3) ELSE "unpublishAt" END,
    "releasedAt" = ${releasedAt('COALESCE($6::"PostStatus", status)', 'COALESCE($12::timestamp(3), "publishedAt")', '"releasedAt"', "$14::timestamp(3)")}
  WHERE id = $1
  RETURNING id, "releasedAt" IS NOT NULL AS released`;

/** Parameters $1–$16: the post's own columns. */
const POST_COLUMN_PARAMS = 16;

const UPDATE_SQL = `
WITH post AS (${UPDATE_POST_SQL}
), drop_authors AS (
  DELETE FROM "PostAuthor" WHERE $17 AND "postId" = $1 AND NOT ("authorId" = ANY($18::text[]))
), put_authors AS (
  INSERT INTO "PostAuthor" ("postId", "authorId", position)
  SELECT post.id, a.id, a.ord - 1 FROM post, unnest($18::text[]) WITH ORDINALITY AS a(id, ord) WHERE $17
  ON CONFLICT ("postId", "authorId") DO UPDATE SET position = EXCLUDED.position
), drop_tags AS (
  DELETE FROM "PostTag" WHERE $19 AND "postId" = $1 AND NOT ("tagId" = ANY($20::text[]))
), put_tags AS (
  INSERT INTO "PostTag" ("postId", "tagId") SELECT post.id, t.id FROM post, unnest($20::text[]) AS t(id) WHERE $19
  ON CONFLICT DO NOTHING
), clear_fields AS (
  DELETE FROM "PostFieldValue" WHERE "postId" = $1 AND "fieldId" = ANY($21::text[])
), put_fields AS (
  INSERT INTO "PostFieldValue" ("postId", "fieldId", value)
  SELECT post.id, v.key, v.value FROM post, jsonb_each($22::jsonb) AS v(key, value)
  ON CONFLICT ("postId", "fieldId") DO UPDATE SET value = EXCLUDED.value
)
SELECT id, released FROM post`;

/** Returns null when no post has the id (any more), else whether it is public (released) after the update. */
export async function updatePostRow(
  tx: Queryable,
  row: PostRowUpdate,
): Promise<{ released: boolean } | null> {
  const attached = row.authorIds !== undefined || row.tagIds !== undefined || row.fieldValues !== undefined;
  const params = [
    row.id,
    row.title ?? null,
    row.slug ?? null,
    row.description ?? null,
    row.content ?? null,
    row.status ?? null,
    row.featured ?? null,
    row.coverImage !== undefined,
    row.coverImage ?? null,
    row.attribution !== undefined,
    row.attribution ?? null,
    row.publishedAt ? utc(row.publishedAt) : null,
    row.categoryId ?? null,
    utc(new Date()),
    row.unpublishAt !== undefined,
    row.unpublishAt ? utc(row.unpublishAt) : null,
    // $17–$22: the sets, read by UPDATE_SQL only.
    row.authorIds !== undefined,
    row.authorIds ?? [],
    row.tagIds !== undefined,
    row.tagIds ?? [],
    row.fieldValues?.clear ?? [],
    JSON.stringify(Object.fromEntries(row.fieldValues?.set ?? [])),
  ];
  const [sql, values] = attached
    ? [UPDATE_SQL, params]
    : [UPDATE_POST_SQL, params.slice(0, POST_COLUMN_PARAMS)];
  const updated = await tx.$queryRawUnsafe<{ id: string; released: boolean }[]>(sql, ...values);
  const [post] = updated;
  return post ? { released: post.released === true } : null;
}

/** Prisma keeps DateTime as UTC in `timestamp(3)` columns; send the same text it would. */
function utc(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}
