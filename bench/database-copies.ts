// Two databases holding the same data, for two builds whose migrations differ: the first is seeded,
// then copied whole for the second (PostgreSQL: a new database made from the first as its template,
// page for page; embedded: a copy of the data folder), so each build can run on a schema of its own
// while both answer from the same rows. Both are removed by `drop`.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export interface DatabaseCopies {
  mode: "postgres" | "embedded";
  /** Where the first database is, for the report. */
  location: string;
  /** The first database's DATABASE_URL, or DATA_DIR (with a DATA_DIR for media on PostgreSQL). */
  first: Record<string, string>;
  /** Copies the first (nothing may have it open) and returns the copy's environment. */
  copy(): Promise<Record<string, string>>;
  drop(): Promise<void>;
}

export async function createDatabaseCopies(options: {
  embedded: boolean;
  databaseUrl: string;
}): Promise<DatabaseCopies> {
  const folders: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "content-bench-"));
    folders.push(dir);
    return dir;
  };
  const removeFolders = () => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  };
  if (options.embedded) {
    const dataDir = folder();
    return {
      mode: "embedded",
      location: dataDir,
      first: { DATA_DIR: dataDir },
      async copy() {
        const copy = folder();
        cpSync(dataDir, copy, { recursive: true });
        return { DATA_DIR: copy };
      },
      drop: async () => removeFolders(),
    };
  }
  const stamp = `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${process.pid}`;
  const names = [`bench_${stamp}_a`, `bench_${stamp}_b`];
  const urlOf = (name: string) => {
    const url = new URL(options.databaseUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end().catch(() => {});
    }
  };
  await admin(`CREATE DATABASE "${names[0]}"`);
  return {
    mode: "postgres",
    location: `${redact(urlOf(names[0]!))} (and its copy ${names[1]})`,
    first: { DATABASE_URL: urlOf(names[0]!), DATA_DIR: folder() },
    async copy() {
      // A closed pool's backends may take a moment to exit; the template must have none.
      for (let attempt = 0; ; attempt++) {
        try {
          await admin(`CREATE DATABASE "${names[1]}" TEMPLATE "${names[0]}"`);
          break;
        } catch (error) {
          if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      return { DATABASE_URL: urlOf(names[1]!), DATA_DIR: folder() };
    },
    async drop() {
      try {
        for (const name of names) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        removeFolders();
      }
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
