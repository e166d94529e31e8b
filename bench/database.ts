// A fresh database for one bench run: its own PostgreSQL schema (dropped afterwards), or a temporary
// DATA_DIR for the embedded mode (deleted afterwards). `env` is what the service, the baseline and the
// in-process runtime all get, so the three always look at the same data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export interface BenchDatabase {
  mode: "postgres" | "embedded";
  /** Schema name or data directory, for the report. */
  location: string;
  /** DATABASE_URL / DATABASE_SCHEMA, or DATA_DIR. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function createBenchDatabase(options: {
  embedded: boolean;
  databaseUrl: string;
}): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "content-bench-"));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (options.embedded) {
    return {
      mode: "embedded",
      location: dataDir,
      env: { DATA_DIR: dataDir },
      drop: async () => removeDataDir(),
    };
  }
  const schema = `bench_${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${process.pid}`;
  const client = new pg.Client({ connectionString: options.databaseUrl });
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA "${schema}"`);
  } catch (error) {
    removeDataDir();
    throw new Error(
      `Cannot prepare PostgreSQL at ${redact(options.databaseUrl)}: ${(error as Error).message}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
  return {
    mode: "postgres",
    location: `${redact(options.databaseUrl)} schema ${schema}`,
    // DATA_DIR only holds local media here; nothing is uploaded, but keep it out of the project.
    env: { DATABASE_URL: options.databaseUrl, DATABASE_SCHEMA: schema, DATA_DIR: dataDir },
    async drop() {
      const dropper = new pg.Client({ connectionString: options.databaseUrl });
      try {
        await dropper.connect();
        await dropper.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await dropper.end().catch(() => {});
        removeDataDir();
      }
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
