// What a migration's test needs on both stores: the migrations folder as it was before that migration
// (to build a database the old way, fill it, then migrate it), an in-memory PGlite, and PostgreSQL in a
// schema of its own (DATABASE_URL) that is dropped afterwards.
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { defaultMigrationsDir } from "../../src/db/migrations.ts";
import { pgliteExecutor, type SqlExecutor } from "../../src/db/sql-executor.ts";

const copies: string[] = [];

/** A copy of the migrations folder without `migration` and every one after it (the lock file kept). */
export async function migrationsBefore(migration: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `migrations-before-${migration}-`));
  copies.push(dir);
  await cp(defaultMigrationsDir, dir, { recursive: true });
  for (const entry of await readdir(dir))
    if (entry >= migration && entry !== "migration_lock.toml")
      await rm(join(dir, entry), { recursive: true, force: true });
  return dir;
}

/** Removes the copies `migrationsBefore` made (call it in the file's afterAll). */
export async function removeMigrationCopies(): Promise<void> {
  await Promise.all(copies.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Runs `check` on a new in-memory PGlite, closed afterwards. */
export async function onPglite(check: (db: SqlExecutor) => Promise<void>): Promise<void> {
  const pglite = await PGlite.create();
  try {
    await check(pgliteExecutor(pglite));
  } finally {
    await pglite.close();
  }
}

/** Runs `check` with a client of DATABASE_URL confined to a new schema, dropped afterwards. */
export async function inPostgresSchema(
  check: (client: pg.Client, schema: string) => Promise<void>,
): Promise<void> {
  const schema = `test_migration_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await check(client, schema);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
