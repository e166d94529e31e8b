// A category's, tag's or author's names in other locales, as an import writes them (archive format
// version 2, issue 56): the record's translations become exactly those of the record (absent: the
// record says nothing of them and they stay as they are). A locale the workspace lacks or its default
// (whose name is the record's own) fails the record, before anything of it is written.
import { TRANSLATION_TABLES, type TranslatedKind } from "../taxonomy/taxonomy-translations.ts";
import type { UnitOfWork } from "../writer.ts";
import type { ImportTarget } from "./import-target.ts";

/** One locale's name and description (an author's bio) of an imported record. */
export interface ImportedName {
  locale: string;
  name: string;
  /** The description, or an author's bio. */
  text: string | null;
}

/** Why the record's translations cannot be written, or null. */
export async function nameProblems(
  uow: UnitOfWork,
  target: ImportTarget,
  names: readonly ImportedName[] | undefined,
): Promise<string | null> {
  if (!names || names.length === 0) return null;
  const locales = await uow.tx.locale.findMany({
    where: { workspaceId: target.workspaceId, code: { in: names.map((entry) => entry.locale) } },
    select: { code: true, isDefault: true },
  });
  for (const { locale } of names) {
    const found = locales.find((candidate) => candidate.code === locale);
    if (!found) return `its "${locale}" name: "${locale}" is not a locale of this workspace`;
    if (found.isDefault)
      return `its "${locale}" name: "${locale}" is the default locale, whose name is the record's own`;
  }
  return null;
}

/** Replaces the record's translations with `names` (nothing when the record says nothing of them). */
export async function writeNames(
  uow: UnitOfWork,
  target: ImportTarget,
  kind: TranslatedKind,
  id: string,
  names: readonly ImportedName[] | undefined,
): Promise<void> {
  if (names === undefined) return;
  const { table, record, text } = TRANSLATION_TABLES[kind];
  await uow.tx.$executeRawUnsafe(`DELETE FROM "${table}" WHERE "${record}" = $1`, id);
  for (const entry of names)
    await uow.tx.$executeRawUnsafe(
      `INSERT INTO "${table}" ("${record}", "workspaceId", locale, name, "${text}", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP AT TIME ZONE 'UTC')`,
      id,
      target.workspaceId,
      entry.locale,
      entry.name,
      entry.text,
    );
}
