// Per-request dataloaders for what plugin-prisma's query planning does not cover.
import DataLoader from "dataloader";
import { htmlToMarkdown } from "../content/posts/markdown.ts";
import { localesJson, type StoredLocale } from "../content/posts/post-translation-reads.ts";
import { SERVED_NAMES_SQL, type TranslatedKind } from "../content/taxonomy/taxonomy-translations.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { statementName } from "../db/statement-names.ts";
import type { FieldType } from "../generated/prisma/client.ts";

export interface FieldDefinitionSummary {
  id: string;
  key: string;
  type: FieldType;
  /** Values per translation (issue 56). */
  localized: boolean;
}

/** A stored custom field value, as a post's `fieldValues` holds it. */
export interface StoredValue {
  fieldId: string;
  value: unknown;
}

export interface Loaders {
  /** The workspace's custom field definitions, in position order: every post's `fields` needs them. */
  fieldDefinitions: DataLoader<string, FieldDefinitionSummary[]>;
  /**
   * The definitions `fieldDefinitions` has loaded, by workspace: a list page loads them beside its rows,
   * so each post's `fields` is answered at once, without a promise per post.
   */
  loadedFieldDefinitions: Map<string, FieldDefinitionSummary[]>;
  /** Hands the loader definitions a statement read beside its own work (fieldDefinitionsJson). */
  primeFieldDefinitions(workspaceId: string, definitions: FieldDefinitionSummary[]): void;
  /**
   * The values of localized fields of translations, keyed by translationKey(postId, locale): a page's
   * posts served in other locales than the default read theirs in one statement.
   */
  translationFieldValues: DataLoader<string, StoredValue[]>;
  /**
   * The workspace's locales (readLocales' order): a post read without `locale` tells its locale and
   * alternates only in a workspace of several (default-locale-facts.ts). A page or post statement reads
   * them beside its own work when its selection asks (WORKSPACE_LOCALES_SQL), one round trip fewer.
   */
  workspaceLocales: DataLoader<string, StoredLocale[]>;
  /** The locales `workspaceLocales` holds already, if any (a statement then need not read them). */
  knownWorkspaceLocales(workspaceId: string): StoredLocale[] | undefined;
  /** Hands the loader locales a statement read beside its own work (localesJson). */
  primeWorkspaceLocales(workspaceId: string, locales: StoredLocale[]): void;
  /** Markdown of an HTML body; the same body is converted once per request. */
  markdown: DataLoader<string, string>;
  /**
   * The names a category, tag or author (keyed `<kind> <id>`) is served in a list of locales, tried in
   * order before its own (issue 56; SERVED_NAMES_SQL): one loader per list, one statement per batch.
   */
  servedNames(locales: readonly string[]): DataLoader<string, ServedName | null>;
}

/** A record's name and description (bio) as served, the locale that served them (null: its own), and its rank by that name in its batch. */
export interface ServedName {
  locale: string | null;
  name: string;
  text: string | null;
  rank: number;
}

// Raw SQL, not Prisma: every post list asks for the definitions, and a Prisma call costs several times
// the CPU of a raw statement this small (a CPU profile of `npm run bench -- --profile`).
const FIELD_DEFINITIONS_SQL = `SELECT id, key, type::text AS type, localized, "workspaceId" FROM "Field"
  WHERE "workspaceId" = ANY($1::text[]) ORDER BY position ASC, "createdAt" ASC`;

/**
 * The definitions of the workspace in `workspaceParam`, as FIELD_DEFINITIONS_SQL reads them, as one json
 * array: a list page's first statement reads them with its count and ids, one round trip fewer.
 */
export function fieldDefinitionsJson(workspaceParam: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', f.id, 'key', f.key, 'type', f.type::text, 'localized', f.localized)
            ORDER BY f.position ASC, f."createdAt" ASC), '[]')
     FROM "Field" f WHERE f."workspaceId" = ${workspaceParam})`;
}

const TRANSLATION_VALUES_SQL = `SELECT v."postId", v.locale, v."fieldId", v.value
  FROM "PostTranslationFieldValue" v
  JOIN unnest($1::text[], $2::text[]) AS k("postId", locale) ON k."postId" = v."postId" AND k.locale = v.locale`;

const WORKSPACE_LOCALES_SQL = `SELECT ${localesJson("$1")} AS locales`;

/** The key of a translation in translationFieldValues. */
export function translationKey(postId: string, locale: string): string {
  return `${postId} ${locale}`;
}

/** The loader of servedNames for one list of locales. */
function servedNamesLoader(sql: SqlExecutor, locales: readonly string[]) {
  return new DataLoader<string, ServedName | null>(async (keys) => {
    const ids: Record<TranslatedKind, string[]> = { category: [], tag: [], author: [] };
    for (const key of keys) {
      const [kind, id] = key.split(" ") as [TranslatedKind, string];
      ids[kind].push(id);
    }
    const rows = await sql.query<{
      kind: string;
      id: string;
      locale: string | null;
      name: string;
      text: string | null;
    }>(SERVED_NAMES_SQL, [ids.category, ids.tag, ids.author, [...locales]], {
      name: statementName(SERVED_NAMES_SQL),
    });
    const byKey = new Map(
      rows.map((row, rank) => [
        `${row.kind} ${row.id}`,
        { locale: row.locale, name: row.name, text: row.text, rank },
      ]),
    );
    return keys.map((key) => byKey.get(key) ?? null);
  });
}

export function createLoaders(sql: SqlExecutor): Loaders {
  const servedNames = new Map<string, DataLoader<string, ServedName | null>>();
  const loadedFieldDefinitions = new Map<string, FieldDefinitionSummary[]>();
  const fieldDefinitions = new DataLoader<string, FieldDefinitionSummary[]>(async (workspaceIds) => {
    const rows = await sql.query<FieldDefinitionSummary & { workspaceId: string }>(
      FIELD_DEFINITIONS_SQL,
      [[...workspaceIds]],
      { name: statementName(FIELD_DEFINITIONS_SQL) },
    );
    return workspaceIds.map((workspaceId) => {
      const definitions = rows
        .filter((row) => row.workspaceId === workspaceId)
        .map(({ id, key, type, localized }) => ({ id, key, type, localized }));
      loadedFieldDefinitions.set(workspaceId, definitions);
      return definitions;
    });
  });
  const loadedLocales = new Map<string, StoredLocale[]>();
  // One workspace per request: a batch is one statement per workspace asked for.
  const workspaceLocales = new DataLoader<string, StoredLocale[]>((workspaceIds) =>
    Promise.all(
      workspaceIds.map(async (workspaceId) => {
        const [row] = await sql.query<{ locales: StoredLocale[] }>(WORKSPACE_LOCALES_SQL, [workspaceId], {
          name: statementName(WORKSPACE_LOCALES_SQL),
        });
        const locales = row?.locales ?? [];
        loadedLocales.set(workspaceId, locales);
        return locales;
      }),
    ),
  );
  return {
    fieldDefinitions,
    loadedFieldDefinitions,
    primeFieldDefinitions(workspaceId, definitions) {
      fieldDefinitions.prime(workspaceId, definitions);
      loadedFieldDefinitions.set(workspaceId, definitions);
    },
    translationFieldValues: new DataLoader<string, StoredValue[]>(async (keys) => {
      const pairs = keys.map((key) => key.split(" ") as [string, string]);
      const rows = await sql.query<StoredValue & { postId: string; locale: string }>(
        TRANSLATION_VALUES_SQL,
        [pairs.map(([postId]) => postId), pairs.map(([, locale]) => locale)],
        { name: statementName(TRANSLATION_VALUES_SQL) },
      );
      return pairs.map(([postId, locale]) =>
        rows
          .filter((row) => row.postId === postId && row.locale === locale)
          .map(({ fieldId, value }) => ({ fieldId, value })),
      );
    }),
    workspaceLocales,
    knownWorkspaceLocales: (workspaceId) => loadedLocales.get(workspaceId),
    primeWorkspaceLocales(workspaceId, locales) {
      workspaceLocales.prime(workspaceId, locales);
      loadedLocales.set(workspaceId, locales);
    },
    markdown: new DataLoader(async (bodies) => bodies.map(htmlToMarkdown)),
    servedNames(locales) {
      const key = locales.join(",");
      let loader = servedNames.get(key);
      if (!loader) {
        loader = servedNamesLoader(sql, locales);
        servedNames.set(key, loader);
      }
      return loader;
    },
  };
}
