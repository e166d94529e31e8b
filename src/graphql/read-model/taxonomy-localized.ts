// Categories, tags and authors read in a locale (issue 56): the name and description (an author's bio)
// of the first locale of the read's chain that has them — the default locale's are the record's own
// columns, every other's a row of the kind's translation table (content/taxonomy/taxonomy-translations.ts)
// — and which locale served them. The chain is the one post reads use (post-translation-reads.ts).

import type { ReadChain } from "../../content/posts/post-translation-reads.ts";
import { TRANSLATION_TABLES, type TranslatedKind } from "../../content/taxonomy/taxonomy-translations.ts";
import type { GraphQLContext } from "../context.ts";

const SERVED_LOCALE = Symbol("servedLocale");

/** A record as the read model serves it: its localized columns those of the locale that served them. */
type Localizable = { id: string; name: string } & Record<string, unknown>;

/** The locale a record was served in; null when it was read without `locale`. */
export function servedLocaleOf(record: object): string | null {
  return (record as { [SERVED_LOCALE]?: string })[SERVED_LOCALE] ?? null;
}

/** Marks a record as served in `locale` (its name and description already that locale's). */
export function withServedLocale<Row extends object>(record: Row, locale: string): Row {
  return Object.assign(record, { [SERVED_LOCALE]: locale });
}

/**
 * The Prisma `where` that keeps the records the chain can serve: all of them when it reaches the
 * default locale (whose name every record has), else those with a translation in one of its locales.
 */
export function servableWhere(chain: ReadChain): object {
  if (chain.locales.includes(chain.defaultCode)) return {};
  return { translations: { some: { locale: { in: chain.locales } } } };
}

/**
 * The records with their name and description in the chain's first locale that has them, in the
 * records' order; a record no locale of the chain names is left out (fallback=none, say). One statement.
 */
export async function localizeRecords<Row extends Localizable>(
  ctx: GraphQLContext,
  kind: TranslatedKind,
  rows: Row[],
  chain: ReadChain,
): Promise<Row[]> {
  const { table, record, text } = TRANSLATION_TABLES[kind];
  const others = chain.locales.filter((code) => code !== chain.defaultCode);
  const found =
    rows.length === 0 || others.length === 0
      ? []
      : await ctx.prisma.$queryRawUnsafe<{ id: string; locale: string; name: string; text: string | null }[]>(
          `SELECT "${record}" AS id, locale, name, "${text}" AS text FROM "${table}"
            WHERE "${record}" = ANY($1::text[]) AND locale = ANY($2::text[])`,
          rows.map((row) => row.id),
          others,
        );
  const byKey = new Map(found.map((translation) => [`${translation.id} ${translation.locale}`, translation]));
  const served: Row[] = [];
  for (const row of rows) {
    for (const code of chain.locales) {
      if (code === chain.defaultCode) {
        served.push(Object.assign(row, { [SERVED_LOCALE]: code }));
        break;
      }
      const translation = byKey.get(`${row.id} ${code}`);
      if (translation) {
        served.push(
          Object.assign(row, { name: translation.name, [text]: translation.text, [SERVED_LOCALE]: code }),
        );
        break;
      }
    }
  }
  return served;
}
