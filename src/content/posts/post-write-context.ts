// Everything a post write must check, read in ONE statement: the post (for updates), whether the
// category, tags and authors exist in the workspace, the default author, and the custom field
// definitions. Keeps a write at three statements: this, the write, and reading the result back.
// Inside a transaction (updates) it also locks what it read until the write commits: the post itself
// (concurrent writes of one post take turns, and a DELETE of it waits or came first) and the records the
// write will point at (their DELETE waits, then takes them off the post), so the checks still hold when
// the write runs. The post is locked FOR NO KEY UPDATE, not FOR UPDATE: a category's DELETE checks the
// posts pointing at it with FOR KEY SHARE, which must not wait for a write waiting on that category.
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { FieldDefinitionForValues } from "../taxonomy/custom-field-values.ts";

export interface PostWriteContext {
  /** The post the identifier names (updates), or null. */
  postId: string | null;
  /**
   * Whether that post was public (released: its post.published recorded) before the write, read with
   * the lock, so no other write (nor the scheduler, scheduler.ts) changes it meanwhile; null on create.
   */
  postReleased: boolean | null;
  /** That post's publishedAt and scheduled unpublish (unix ms), which a write's new dates are checked against. */
  postDates: { publishedAt: number; unpublishAt: number | null } | null;
  categoryExists: boolean;
  existingTags: Set<string>;
  existingAuthors: Set<string>;
  /** The workspace's first author (oldest), the default when a create names none. */
  firstAuthorId: string | null;
  fields: FieldDefinitionForValues[];
}

const POST_SQL = `(SELECT json_build_object('id', id, 'released', "releasedAt" IS NOT NULL, 'publishedAt', (extract(epoch FROM "publishedAt") * 1000)::float8, 'unpublishAt', (extract(epoch FROM "unpublishAt") * 1000)::float8) FROM "Post" WHERE "workspaceId" = $1 AND (id = $2 OR slug = $2) ORDER BY (id = $2) DESC LIMIT 1 FOR NO KEY UPDATE) AS post`;

const CONTEXT_SQL = `
SELECT
  ${POST_SQL},
  EXISTS (SELECT 1 FROM "Category" WHERE "workspaceId" = $1 AND id = $3 FOR KEY SHARE) AS "categoryExists",
  ARRAY(SELECT id FROM "Tag" WHERE "workspaceId" = $1 AND id = ANY($4::text[]) FOR KEY SHARE) AS tags,
  ARRAY(SELECT id FROM "Author" WHERE "workspaceId" = $1 AND id = ANY($5::text[]) FOR KEY SHARE) AS authors,
  (SELECT id FROM "Author" WHERE "workspaceId" = $1 ORDER BY "createdAt", id LIMIT 1) AS "firstAuthorId",
  (SELECT coalesce(json_agg(json_build_object(
      'id', f.id, 'key', f.key, 'type', f.type, 'required', f.required, 'localized', f.localized,
      'options', (SELECT coalesce(json_agg(json_build_object('value', o.value) ORDER BY o.position), '[]'::json) FROM "FieldOption" o WHERE o."fieldId" = f.id)
    ) ORDER BY f.position, f."createdAt"), '[]'::json)
   FROM (SELECT * FROM "Field" WHERE "workspaceId" = $1 FOR KEY SHARE) f) AS fields`;

// An update that names no category, tag, author or custom field value (an editor's draft save: title,
// body) checks and points at nothing: it reads and locks the post alone. The rest would be read, locked
// and, on the embedded database, parsed and planned on the thread that serves requests, for nothing.
const POST_ONLY_SQL = `SELECT ${POST_SQL}`;

interface LockedPost {
  id: string;
  released: boolean;
  publishedAt: number;
  unpublishAt: number | null;
}

interface ContextRow {
  post: LockedPost | string | null;
  categoryExists: boolean;
  tags: string[] | string;
  authors: string[] | string;
  firstAuthorId: string | null;
  fields: FieldDefinitionForValues[] | string;
}

export async function loadPostWriteContext(
  prisma: Pick<PrismaClient, "$queryRawUnsafe">,
  workspaceId: string,
  refs: {
    identifier?: string | null;
    categoryId?: string | null;
    tags?: readonly string[] | null;
    authors?: readonly string[] | null;
    /** The custom field values the write sets (undefined: none, so no definitions are read). */
    fields?: unknown;
  },
): Promise<PostWriteContext> {
  if (refs.identifier && isPostOnly(refs)) return postOnlyContext(prisma, workspaceId, refs.identifier);
  const [row] = await prisma.$queryRawUnsafe<ContextRow[]>(
    CONTEXT_SQL,
    workspaceId,
    refs.identifier ?? "",
    refs.categoryId ?? "",
    [...(refs.tags ?? [])],
    [...(refs.authors ?? [])],
  );
  if (!row) throw new Error("post write context query returned no row");
  const post = lockedPost(row.post);
  return {
    postId: post?.id ?? null,
    postReleased: post ? post.released : null,
    postDates: post ? { publishedAt: post.publishedAt, unpublishAt: post.unpublishAt } : null,
    categoryExists: row.categoryExists,
    existingTags: new Set(asArray(row.tags)),
    existingAuthors: new Set(asArray(row.authors)),
    firstAuthorId: row.firstAuthorId,
    fields: typeof row.fields === "string" ? JSON.parse(row.fields) : row.fields,
  };
}

/** An update that names no reference and no custom field value: what only its post decides. */
function isPostOnly(refs: Parameters<typeof loadPostWriteContext>[2]): boolean {
  return refs.categoryId == null && refs.tags == null && refs.authors == null && refs.fields === undefined;
}

/**
 * The context of such an update: the post, locked as in CONTEXT_SQL. It names nothing to check (no
 * category, tag or author) and validates no field value, so it reads no definitions; nor a default
 * author, which only a create takes.
 */
async function postOnlyContext(
  prisma: Pick<PrismaClient, "$queryRawUnsafe">,
  workspaceId: string,
  identifier: string,
): Promise<PostWriteContext> {
  const [row] = await prisma.$queryRawUnsafe<Pick<ContextRow, "post">[]>(
    POST_ONLY_SQL,
    workspaceId,
    identifier,
  );
  const post = lockedPost(row?.post ?? null);
  return {
    postId: post?.id ?? null,
    postReleased: post ? post.released : null,
    postDates: post ? { publishedAt: post.publishedAt, unpublishAt: post.unpublishAt } : null,
    categoryExists: false,
    existingTags: new Set(),
    existingAuthors: new Set(),
    firstAuthorId: null,
    fields: [],
  };
}

/** POST_SQL's json: an object, or its text, as the driver hands it back. */
function lockedPost(value: ContextRow["post"]): LockedPost | null {
  return typeof value === "string" ? JSON.parse(value) : value;
}

/** Drivers differ in how they hand back a text[]: an array, or its literal `{a,b}`. */
function asArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, "");
  return inner ? inner.split(",").map((item) => item.replace(/^"|"$/g, "")) : [];
}
