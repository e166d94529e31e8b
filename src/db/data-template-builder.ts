// Builds the template of new embedded data folders (data-template.ts): a PGlite database in a folder
// of its own, migrated, checkpointed and shut down cleanly, so a copy of it opens without recovery.
// Run by `npm run build:server` (part of `npm run setup`), and by a first start that finds none it can use.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { defaultTemplateRoot, pgliteVersion, type TemplateManifest, templatePaths } from "./data-template.ts";
import { applyPendingMigrations, defaultMigrationsDir } from "./migrations.ts";
import { pgliteExecutor } from "./sql-executor.ts";

export interface BuildTemplateOptions {
  migrationsDir?: string;
}

/**
 * Builds a template under `root`, replacing any there. It is made beside and renamed into place, so a
 * start copying the template never sees half of one; when two processes build at once, one keeps its own.
 */
export async function buildDataTemplate(
  root: string = defaultTemplateRoot,
  options: BuildTemplateOptions = {},
): Promise<TemplateManifest> {
  const building = `${root}.${process.pid}.building`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    const paths = templatePaths(building);
    const manifest = await migrateNewDatabase(paths.dataDir, options.migrationsDir ?? defaultMigrationsDir);
    writeFileSync(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
    replaceDirectory(building, root);
    return manifest;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

async function migrateNewDatabase(dataDir: string, migrationsDir: string): Promise<TemplateManifest> {
  const db = new PGlite(dataDir);
  try {
    await db.waitReady;
    await applyPendingMigrations(pgliteExecutor(db), { migrationsDir });
    // What the data holds, read from the data itself.
    const { rows } = await db.query<{ name: string; checksum: string }>(
      `SELECT migration_name AS name, checksum FROM _prisma_migrations
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
    );
    // Everything on disk, nothing left for WAL replay when a copy opens.
    await db.exec("CHECKPOINT");
    return { pglite: pgliteVersion(), migrations: rows };
  } finally {
    await db.close();
  }
}

/** Moves `from` to `to`, setting aside and then removing what was at `to`. */
function replaceDirectory(from: string, to: string): void {
  const old = `${to}.${process.pid}.old`;
  try {
    renameSync(to, old);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  try {
    renameSync(from, to);
  } catch (error) {
    // Another process placed its template in between: as good as ours.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
  rmSync(old, { recursive: true, force: true });
}
