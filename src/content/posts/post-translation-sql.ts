// A post translation's row (issue 56): the localized fields of a post in a locale other than the
// workspace's default, written in one statement each. Its slug reaches PostSlug through the table's
// triggers (migration 20261128124420_post_translations), whose unique index makes a duplicate a unique
// violation (a 409), never a second row. releasedAt follows the post's rule (post-write-sql.ts).
import type { WriteClient } from "../writer.ts";

type Queryable = Pick<WriteClient, "$queryRawUnsafe">;

export interface TranslationFields {
  title?: string;
  slug?: string;
  description?: string;
  content?: string;
  status?: "published" | "draft";
  publishedAt?: Date;
  /** A scheduled unpublish (post-release.ts); undefined = keep, null = clear (none on a new row). */
  unpublishAt?: Date | null;
}

export interface LockedTranslation {
  slug: string;
  released: boolean;
  /** Unix ms (the bare timestamp read as UTC, which is how it is stored). */
  publishedAt: number;
  unpublishAt: number | null;
}

/** The translation as it was before a write, read with its row locked; null when there is none. */
export async function lockedTranslation(
  tx: Queryable,
  postId: string,
  locale: string,
): Promise<LockedTranslation | null> {
  const [row] = await tx.$queryRawUnsafe<LockedTranslation[]>(
    `SELECT slug, "releasedAt" IS NOT NULL AS released,
            (extract(epoch FROM "publishedAt") * 1000)::float8 AS "publishedAt",
            (extract(epoch FROM "unpublishAt") * 1000)::float8 AS "unpublishAt"
       FROM "PostTranslation"
      WHERE "postId" = $1 AND locale = $2 FOR UPDATE`,
    postId,
    locale,
  );
  return row ?? null;
}

const RELEASED_AT = (status: string, publishedAt: string, previous: string, now: string) =>
  `CASE WHEN ${status} = 'published' AND ${publishedAt} <= ${now} THEN COALESCE(${previous}, ${now}) END`;

const INSERT_SQL = `
INSERT INTO "PostTranslation" ("postId", "workspaceId", locale, slug, title, description, content, status,
                               "publishedAt", "releasedAt", "createdAt", "updatedAt", "unpublishAt")
VALUES ($1, $2, $3, $4, $5, $6, $7, $8::"PostStatus", $9::timestamp(3),
        ${RELEASED_AT('$8::"PostStatus"', "$9::timestamp(3)", "NULL::timestamp(3)", "$10::timestamp(3)")},
        $10::timestamp(3), $10::timestamp(3), $11::timestamp(3))
RETURNING "releasedAt" IS NOT NULL AS released`;

/** Adds the post's translation in `locale`; returns whether it is public (released) after the write. */
export async function insertTranslationRow(
  tx: Queryable,
  row: Required<Omit<TranslationFields, "unpublishAt">> &
    Pick<TranslationFields, "unpublishAt"> & { postId: string; workspaceId: string; locale: string },
): Promise<{ released: boolean }> {
  const [inserted] = await tx.$queryRawUnsafe<{ released: boolean }[]>(
    INSERT_SQL,
    row.postId,
    row.workspaceId,
    row.locale,
    row.slug,
    row.title,
    row.description,
    row.content,
    row.status,
    utc(row.publishedAt),
    utc(new Date()),
    row.unpublishAt ? utc(row.unpublishAt) : null,
  );
  return { released: inserted?.released === true };
}

const UPDATE_SQL = `
UPDATE "PostTranslation" SET
  slug = COALESCE($3, slug),
  title = COALESCE($4, title),
  description = COALESCE($5, description),
  content = COALESCE($6, content),
  status = COALESCE($7::"PostStatus", status),
  "publishedAt" = COALESCE($8::timestamp(3), "publishedAt"),
  "updatedAt" = $9::timestamp(3),
  "unpublishAt" = CASE WHEN $10 THEN $11::timestamp(3) ELSE "unpublishAt" END,
  "releasedAt" = ${RELEASED_AT('COALESCE($7::"PostStatus", status)', 'COALESCE($8::timestamp(3), "publishedAt")', '"releasedAt"', "$9::timestamp(3)")}
WHERE "postId" = $1 AND locale = $2
RETURNING "releasedAt" IS NOT NULL AS released`;

/** Changes the given fields of the post's translation in `locale`; null when it has none. */
export async function updateTranslationRow(
  tx: Queryable,
  postId: string,
  locale: string,
  fields: TranslationFields,
): Promise<{ released: boolean } | null> {
  const [updated] = await tx.$queryRawUnsafe<{ released: boolean }[]>(
    UPDATE_SQL,
    postId,
    locale,
    fields.slug ?? null,
    fields.title ?? null,
    fields.description ?? null,
    fields.content ?? null,
    fields.status ?? null,
    fields.publishedAt ? utc(fields.publishedAt) : null,
    utc(new Date()),
    fields.unpublishAt !== undefined,
    fields.unpublishAt ? utc(fields.unpublishAt) : null,
  );
  return updated ? { released: updated.released === true } : null;
}

/** Removes the post's translation in `locale`; returns whether there was one. */
export async function deleteTranslationRow(tx: Queryable, postId: string, locale: string): Promise<boolean> {
  const deleted = await tx.$queryRawUnsafe<{ postId: string }[]>(
    `DELETE FROM "PostTranslation" WHERE "postId" = $1 AND locale = $2 RETURNING "postId"`,
    postId,
    locale,
  );
  return deleted.length > 0;
}

const FIELD_VALUES_SQL = `
WITH cleared AS (
  DELETE FROM "PostTranslationFieldValue"
   WHERE "postId" = $1 AND locale = $2 AND "fieldId" = ANY($3::text[])
)
INSERT INTO "PostTranslationFieldValue" ("postId", locale, "fieldId", value)
SELECT $1, $2, v.key, v.value FROM jsonb_each($4::jsonb) AS v(key, value)
ON CONFLICT ("postId", locale, "fieldId") DO UPDATE SET value = EXCLUDED.value`;

/** Sets and clears the translation's values of localized custom fields (in one statement). */
export async function writeTranslationFieldValues(
  tx: Pick<WriteClient, "$executeRawUnsafe">,
  postId: string,
  locale: string,
  changes: { set: Map<string, unknown>; clear: string[] },
): Promise<void> {
  await tx.$executeRawUnsafe(
    FIELD_VALUES_SQL,
    postId,
    locale,
    changes.clear,
    JSON.stringify(Object.fromEntries(changes.set)),
  );
}

/** Prisma keeps DateTime as UTC in `timestamp(3)` columns; send the same text it would. */
function utc(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}
