// Per-request dataloaders for what plugin-prisma's query planning does not cover.
import DataLoader from "dataloader";
import { htmlToMarkdown } from "../content/posts/markdown.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { statementName } from "../db/statement-names.ts";
import type { FieldType } from "../generated/prisma/client.ts";

export interface FieldDefinitionSummary {
  id: string;
  key: string;
  type: FieldType;
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
  /** Markdown of an HTML body; the same body is converted once per request. */
  markdown: DataLoader<string, string>;
}

// Raw SQL, not Prisma: every post list asks for the definitions, and a Prisma call costs several times
// the CPU of a raw statement this small (a CPU profile of `npm run bench -- --profile`).
const FIELD_DEFINITIONS_SQL = `SELECT id, key, type::text AS type, "workspaceId" FROM "Field"
  WHERE "workspaceId" = ANY($1::text[]) ORDER BY position ASC, "createdAt" ASC`;

/**
 * The definitions of the workspace in `workspaceParam`, as FIELD_DEFINITIONS_SQL reads them, as one json
 * array: a list page's first statement reads them with its count and ids, one round trip fewer.
 */
export function fieldDefinitionsJson(workspaceParam: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', f.id, 'key', f.key, 'type', f.type::text)
            ORDER BY f.position ASC, f."createdAt" ASC), '[]')
     FROM "Field" f WHERE f."workspaceId" = ${workspaceParam})`;
}

export function createLoaders(sql: SqlExecutor): Loaders {
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
        .map(({ id, key, type }) => ({ id, key, type }));
      loadedFieldDefinitions.set(workspaceId, definitions);
      return definitions;
    });
  });
  return {
    fieldDefinitions,
    loadedFieldDefinitions,
    primeFieldDefinitions(workspaceId, definitions) {
      fieldDefinitions.prime(workspaceId, definitions);
      loadedFieldDefinitions.set(workspaceId, definitions);
    },
    markdown: new DataLoader(async (bodies) => bodies.map(htmlToMarkdown)),
  };
}
