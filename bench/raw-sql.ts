// Database access for the bench's raw yardstick servers (no Prisma, no framework): `pg` when
// DATABASE_URL is set (DATABASE_SCHEMA, DATABASE_POOL_SIZE), else the embedded PGlite in DATA_DIR/db.
import { createHash } from "node:crypto";
import path from "node:path";
import pg from "pg";

export interface Sql {
  query<Row>(text: string, params: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export async function openSql(): Promise<Sql> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const schema = process.env.DATABASE_SCHEMA;
    const pool = new pg.Pool({
      connectionString: url,
      max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    return {
      query: async <Row>(text: string, params: unknown[]) => (await pool.query(text, params)).rows as Row[],
      close: () => pool.end(),
    };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { acquireEmbeddedLock } = await import("../src/db/embedded-lock.ts");
  const dir = path.join(path.resolve(process.env.DATA_DIR ?? "./data"), "db");
  const lock = acquireEmbeddedLock(dir);
  const db = new PGlite(dir);
  await db.waitReady;
  return {
    query: async <Row>(text: string, params: unknown[]) => (await db.query<Row>(text, params)).rows,
    async close() {
      await db.close();
      lock.release();
    },
  };
}

const KEY_SQL = `SELECT "workspaceId" FROM "ApiKey" WHERE hash = $1 AND "revokedAt" IS NULL`;

/**
 * The API key check of the yardstick servers, as the service does it: the SHA-256 of the key looked up
 * once, then remembered. Returns the key's workspace, or null for a missing or unknown key.
 */
export function keyChecker(sql: Sql): (authorization: string | undefined) => Promise<string | null> {
  const workspaceByKeyHash = new Map<string, string | null>();
  return async (authorization) => {
    const key = authorization?.replace(/^Bearer\s+/i, "").trim();
    if (!key) return null;
    const hash = createHash("sha256").update(key, "utf8").digest("hex");
    const cached = workspaceByKeyHash.get(hash);
    if (cached !== undefined) return cached;
    const rows = await sql.query<{ workspaceId: string }>(KEY_SQL, [hash]);
    const workspaceId = rows[0]?.workspaceId ?? null;
    workspaceByKeyHash.set(hash, workspaceId);
    return workspaceId;
  };
}
