// After a bulk import the planner's statistics must describe the tables as they now are: PostgreSQL
// here runs with autovacuum off (docs/operations.md), so nothing would refresh them, and list reads
// would be planned for the empty tables the import started from. ANALYZE reads a sample of each table;
// it changes no row.
import type { SqlExecutor } from "../db/sql-executor.ts";

/** The tables an import writes to (import-writes.ts). */
const IMPORTED_TABLES = [
  "Post",
  "PostTag",
  "PostAuthor",
  "PostFieldValue",
  "PostRevision",
  "Category",
  "Tag",
  "Author",
  "Field",
  "FieldOption",
  "Media",
  "WebhookEndpoint",
  "Event",
  "ImportedRecord",
];

export async function refreshImportStatistics(sql: SqlExecutor): Promise<void> {
  await sql.query(`ANALYZE ${IMPORTED_TABLES.map((table) => `"${table}"`).join(", ")}`);
}
