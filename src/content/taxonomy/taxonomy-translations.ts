// The names of categories, tags and authors per locale (issue 56; docs/decisions.md "Taxonomy
// translations"): the slug is shared; the name and the description (an author's bio) of the default
// locale are the record's own columns, every other locale's a row of the kind's translation table. A
// write naming a locale other than the default writes that row (created when missing: it then needs a
// name); a description (bio) left out of the write that creates it is null there, not the default's.
import { ConflictError, InvalidInputError, NotFoundError } from "../../domain/errors.ts";
import type { WriteLocale } from "../locales/write-locale.ts";
import type { WriteClient } from "../writer.ts";

export type TranslatedKind = "category" | "tag" | "author";

/** Each kind's translation table, the column naming its record, and its localized text column. */
export const TRANSLATION_TABLES: Record<
  TranslatedKind,
  { table: string; record: string; text: "description" | "bio"; label: string }
> = {
  category: { table: "CategoryTranslation", record: "categoryId", text: "description", label: "Category" },
  tag: { table: "TagTranslation", record: "tagId", text: "description", label: "Tag" },
  author: { table: "AuthorTranslation", record: "authorId", text: "bio", label: "Author" },
};

/** What a write gives of the localized fields: undefined leaves one as it is, null clears a description. */
export interface TranslationFields {
  name?: string | null;
  text?: string | null;
}

/**
 * Writes the record's translation in `locale` (not the default: the caller writes the record's own
 * columns then), creating it when missing. One statement either way, so two concurrent first writes of
 * one locale cannot both insert: with a name, an insert that updates the row a concurrent write made;
 * without, an update, and no row to update is the 400 asking for a name.
 */
export async function writeTranslation(
  tx: WriteClient,
  kind: TranslatedKind,
  workspaceId: string,
  id: string,
  locale: WriteLocale,
  fields: TranslationFields,
): Promise<void> {
  const { table, record, text } = TRANSLATION_TABLES[kind];
  const setsText = fields.text !== undefined;
  if (fields.name !== undefined && fields.name !== null) {
    await tx.$executeRawUnsafe(
      `INSERT INTO "${table}" AS t ("${record}", "workspaceId", locale, name, "${text}", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP AT TIME ZONE 'UTC')
       ON CONFLICT ("${record}", locale) DO UPDATE SET name = EXCLUDED.name,
         "${text}" = CASE WHEN $6 THEN EXCLUDED."${text}" ELSE t."${text}" END,
         "updatedAt" = EXCLUDED."updatedAt"`,
      id,
      workspaceId,
      locale.code,
      fields.name,
      fields.text ?? null,
      setsText,
    );
    return;
  }
  const updated = await tx.$executeRawUnsafe(
    `UPDATE "${table}" SET "${text}" = CASE WHEN $3 THEN $4 ELSE "${text}" END,
       "updatedAt" = CURRENT_TIMESTAMP AT TIME ZONE 'UTC'
     WHERE "${record}" = $1 AND locale = $2`,
    id,
    locale.code,
    setsText,
    fields.text ?? null,
  );
  if (updated === 0)
    throw new InvalidInputError(
      `Invalid ${kind}: it has no "${locale.code}" translation yet, and creating it needs a name`,
      [{ field: "name", message: "Required" }],
    );
}

/** Removes the record's translation in `locale`: never the default's (409), a missing one is a 404. */
export async function removeTranslation(
  tx: WriteClient,
  kind: TranslatedKind,
  id: string,
  identifier: string,
  locale: WriteLocale,
): Promise<void> {
  const { table, record, label } = TRANSLATION_TABLES[kind];
  if (locale.isDefault)
    throw new ConflictError(
      `"${locale.code}" is the workspace's default locale: its name is the ${kind}'s own; delete the ${kind} instead`,
      "locale",
    );
  const removed = await tx.$executeRawUnsafe(
    `DELETE FROM "${table}" WHERE "${record}" = $1 AND locale = $2`,
    id,
    locale.code,
  );
  if (removed === 0) throw new NotFoundError(`${label} translation`, `${identifier} (${locale.code})`);
}

/**
 * The names served of categories (`$1`), tags (`$2`) and authors (`$3`), text[]s of ids, in the locales
 * of `$4` (a text[], tried in order; empty: their own names): each record's name and description (bio)
 * of the first of them it has a translation in, else its own (the default locale's), with the locale
 * that served them (null: its own). Ordered by the name served, then id (tags are listed so). One
 * statement, for nested records whose post did not read them so (issue 56).
 */
export const SERVED_NAMES_SQL = `SELECT s.kind, s.id, s.locale, s.name, s.text FROM (${(
  Object.entries(TRANSLATION_TABLES) as [TranslatedKind, (typeof TRANSLATION_TABLES)[TranslatedKind]][]
)
  .map(
    ([kind, { table, record, text }], index) => `SELECT '${kind}' AS kind, r.id, x.locale,
    coalesce(x.name, r.name) AS name, CASE WHEN x.locale IS NULL THEN r."${text}" ELSE x."${text}" END AS text
  FROM "${TRANSLATION_TABLES[kind].label}" r LEFT JOIN LATERAL (SELECT y.locale, y.name, y."${text}" FROM "${table}" y
    WHERE y."${record}" = r.id AND y.locale = ANY($4::text[]) ORDER BY array_position($4::text[], y.locale) LIMIT 1) x ON true
  WHERE r.id = ANY($${index + 1}::text[])`,
  )
  .join("\n  UNION ALL ")}) s ORDER BY s.name, s.id`;
