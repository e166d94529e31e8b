// Each test file gets its own database: an in-memory PGlite (started from the run's migrated dump), or — when DATABASE_URL is set (CI's
// second run) — its own PostgreSQL schema, dropped at the end. So files run in parallel, in any order.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { inject } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.ts";
import type { QueryObserver } from "../../src/db/sql-executor.ts";

let template: Blob | undefined;

/** The migrated database this run's global setup dumped (pglite-template.ts); none: a fresh one. */
function migratedTemplate(): Blob | undefined {
  const file = inject("pgliteTemplate");
  if (!file) return undefined;
  template ??= new Blob([readFileSync(file)]);
  return template;
}

export const storageMode = process.env.DATABASE_URL ? "postgres" : "embedded";

export async function openTestDatabase(
  options: { onQuery?: QueryObserver; statementTimeoutMs?: number } = {},
): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) return openDatabase({ kind: "memory", initialState: migratedTemplate() }, options);
  const schema = `test_${randomBytes(6).toString("hex")}`;
  const db = await openDatabase(
    { kind: "postgres", url, schema, poolSize: 4, statementTimeoutMs: options.statementTimeoutMs ?? 5_000 },
    { ...options, migrate: true },
  );
  return {
    ...db,
    async close() {
      await db.close();
      await dropTestSchema(schema);
    },
  };
}

/** Drops a schema a test made on the PostgreSQL server of this run (none: nothing to drop). */
export async function dropTestSchema(schema: string): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
