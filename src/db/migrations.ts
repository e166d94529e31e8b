// Our own migration runner. It applies prisma/migrations/*/migration.sql at service start (embedded
// PGlite) and from `npm run migrate` (PostgreSQL), because Prisma's native schema engine is not
// always available where the service runs. It keeps the books in Prisma's own `_prisma_migrations`
// table, in Prisma's format, so `prisma migrate deploy`/`status` on the same database later see the
// same history and nothing pending.
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SqlExecutor } from "./sql-executor.ts";

/** prisma/migrations of this project, found from this file so the cwd does not matter. */
export const defaultMigrationsDir = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

/**
 * The id Prisma's schema engine passes to pg_advisory_lock around migrate commands. Taking the same
 * lock makes our runner, other service instances and a concurrent `prisma migrate deploy` wait for
 * each other instead of applying the same migration twice.
 */
export const PRISMA_ADVISORY_LOCK_ID = 72707369;

/** One folder of the migrations directory. */
export interface MigrationFile {
  /** Folder name, e.g. `20261122000000_init`; also the `migration_name` recorded in the table. */
  name: string;
  sql: string;
  /** sha256 (hex) of the migration.sql bytes, as Prisma computes it. */
  checksum: string;
}

export interface ApplyOptions {
  migrationsDir?: string;
  log?: (msg: string) => void;
}

// Prisma's DDL for the table (schema-engine, postgres flavour), verbatim apart from IF NOT EXISTS.
// Unqualified on purpose: it lands in the first schema of the search_path, like every migration.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`;

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Reads every migration folder, sorted by name (the timestamp prefix makes that chronological). */
export async function readMigrations(migrationsDir: string = defaultMigrationsDir): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    },
  );
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(
    names.map(async (name) => {
      const file = join(migrationsDir, name, "migration.sql");
      const bytes = await readFile(file).catch((error: Error) => {
        throw new Error(`Migration folder ${name} has no readable migration.sql (${file}): ${error.message}`);
      });
      return { name, sql: bytes.toString("utf8"), checksum: sha256(bytes) };
    }),
  );
}

/**
 * Prisma accepts a checksum computed with either line ending (git may convert them on checkout), so
 * a Windows checkout of the same migration must not count as edited here either.
 */
function checksumMatches(migration: MigrationFile, recorded: string): boolean {
  const unix = migration.sql.replace(/\r\n/g, "\n");
  return [migration.checksum, sha256(unix), sha256(unix.replace(/\n/g, "\r\n"))].includes(recorded);
}

/**
 * Applies the migrations not yet recorded in `_prisma_migrations`, in folder-name order, each in its
 * own transaction, and returns their names. Refuses to run when the recorded history shows a failed
 * migration or a migration whose file was edited after it was applied.
 *
 * `db` must stay on one connection for the whole call (PGlite, a pg.Client or a checked-out
 * PoolClient — not a pg.Pool): the advisory lock and BEGIN/COMMIT are per session.
 *
 * Migrations must not contain their own BEGIN/COMMIT (Prisma only writes those when recreating an
 * enum): a COMMIT inside would end our transaction early and lose the all-or-nothing guarantee.
 */
export async function applyPendingMigrations(db: SqlExecutor, opts: ApplyOptions = {}): Promise<string[]> {
  const log = opts.log ?? (() => {});
  const migrations = await readMigrations(opts.migrationsDir ?? defaultMigrationsDir);

  // The lock is taken before even creating the table, so concurrent first starts do not race.
  await db.query("SELECT pg_advisory_lock($1)", [PRISMA_ADVISORY_LOCK_ID]);
  let applied: string[];
  let released: boolean | undefined;
  try {
    applied = await applyUnderLock(db, migrations, log);
  } finally {
    const [row] = await db.query<{ released: boolean }>("SELECT pg_advisory_unlock($1) AS released", [
      PRISMA_ADVISORY_LOCK_ID,
    ]);
    released = row?.released;
  }
  // Unlocking on another session fails: the lock then stays with whichever pooled connection took it
  // and blocks every other instance. Only reachable with a multi-connection executor, so say so.
  if (released !== true) {
    throw new Error(
      "applyPendingMigrations: the advisory lock was not held by the unlocking session; " +
        "pass an executor bound to a single connection (PGlite, pg.Client or a PoolClient), not a pg.Pool",
    );
  }
  return applied;
}

async function applyUnderLock(db: SqlExecutor, migrations: MigrationFile[], log: (msg: string) => void) {
  await db.exec(CREATE_MIGRATIONS_TABLE);
  const rows = await db.query<MigrationRow>(
    "SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY started_at",
  );
  const pending = checkHistory(migrations, rows, log);
  for (const migration of pending) {
    await applyOne(db, migration);
    log(`Applied migration ${migration.name}`);
  }
  if (pending.length === 0) log("No pending migrations");
  return pending.map((migration) => migration.name);
}

/** Validates the recorded history against the folder and returns the migrations still to apply. */
function checkHistory(
  migrations: MigrationFile[],
  rows: MigrationRow[],
  log: (msg: string) => void,
): MigrationFile[] {
  // Rows marked rolled back (`prisma migrate resolve --rolled-back`) are only an audit trail.
  const live = rows.filter((row) => row.rolled_back_at === null);

  const failed = live.find((row) => row.finished_at === null);
  if (failed) {
    throw new Error(
      `Migration ${failed.migration_name} failed earlier (it is recorded in _prisma_migrations without finished_at). ` +
        "Repair the database by hand, then run `prisma migrate resolve --rolled-back " +
        `${failed.migration_name}\` (or --applied) before migrating again.`,
    );
  }

  const byName = new Map(migrations.map((migration) => [migration.name, migration]));
  const applied = new Set<string>();
  for (const row of live) {
    applied.add(row.migration_name);
    const migration = byName.get(row.migration_name);
    if (!migration) {
      // A newer release may have migrated this database already; that is not ours to judge.
      log(`Warning: migration ${row.migration_name} is recorded in the database but missing from the folder`);
    } else if (!checksumMatches(migration, row.checksum)) {
      throw new Error(
        `Migration ${row.migration_name} was modified after it was applied (checksum ${row.checksum} recorded, ` +
          `${migration.checksum} on disk). Restore the original file and put the change in a new migration.`,
      );
    }
  }
  return migrations.filter((migration) => !applied.has(migration.name));
}

/** Runs one migration and records it in the same transaction, so it happens entirely or not at all. */
async function applyOne(db: SqlExecutor, migration: MigrationFile): Promise<void> {
  await db.exec("BEGIN");
  try {
    await db.exec(migration.sql);
    // What Prisma leaves behind for a successful migration: one step, no logs, both timestamps.
    // clock_timestamp(), unlike now(), moves on during the transaction, so finished_at is the end.
    await db.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await db.exec("COMMIT");
  } catch (error) {
    await db.exec("ROLLBACK").catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${migration.name} failed and was rolled back: ${reason}`, { cause: error });
  }
}
