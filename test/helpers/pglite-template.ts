// Vitest's global setup for the embedded runs: one in-memory database, migrated, dumped to a file once
// per run, and every test database started from it (test-database.ts). Initialising a PGlite cluster
// costs 2–3 s of CPU, loading a dump about 0.6 s, and the suite opens a few hundred databases.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { applyPendingMigrations } from "../../src/db/migrations.ts";
import { pgliteExecutor } from "../../src/db/sql-executor.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated database's dump, when this run's databases are in-memory PGlite. */
    pgliteTemplate: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (process.env.DATABASE_URL) {
    project.provide("pgliteTemplate", null);
    return () => {};
  }
  const folder = mkdtempSync(path.join(tmpdir(), "pglite-template-"));
  const file = path.join(folder, "migrated.tar");
  const db = new PGlite();
  try {
    await applyPendingMigrations(pgliteExecutor(db));
    const dump = await db.dumpDataDir("none");
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await db.close();
  }
  project.provide("pgliteTemplate", file);
  return () => rmSync(folder, { recursive: true, force: true });
}
