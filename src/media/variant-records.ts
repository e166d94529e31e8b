// The database's side of stored image variants (the MediaVariant table): which original a transform URL
// names, which variants are stored, when each was last used and how many bytes it holds. A variant is
// served only while its record exists, and the record goes with its media item (ON DELETE CASCADE), so
// every instance agrees the moment an original is deleted.
import type { SqlExecutor } from "../db/sql-executor.ts";
import { statementName } from "../db/statement-names.ts";
import type { ImageSize } from "./transform-box.ts";

/** The media item a stored original belongs to. */
export interface OriginalRecord {
  mediaId: string;
  /** Its displayed size, when known (images). */
  size: ImageSize | null;
}

/** A record's last use is moved forward at most this often: a variant served a thousand times a minute
 * costs one write a minute, and least-recently-used eviction needs no finer clock. */
export const TOUCH_INTERVAL_MS = 60_000;

const NOW = `(now() AT TIME ZONE 'UTC')`;

const ORIGINAL_SQL = `SELECT id, width, height FROM "Media" WHERE "storageKey" = $1 LIMIT 1`;
const RECORD_SQL = `SELECT "lastUsedAt" < ${NOW} - make_interval(secs => $2) AS stale
  FROM "MediaVariant" WHERE key = $1`;
const TOUCH_SQL = `UPDATE "MediaVariant" SET "lastUsedAt" = ${NOW} WHERE key = $1`;
const ADD_SQL = `INSERT INTO "MediaVariant" (key, "mediaId", bytes, "createdAt", "lastUsedAt")
  VALUES ($1, $2, $3, ${NOW}, ${NOW})
  ON CONFLICT (key) DO UPDATE SET bytes = EXCLUDED.bytes, "lastUsedAt" = EXCLUDED."lastUsedAt"`;
// The newest uses are kept; ties (one touch interval) keep the newer variant.
const EVICT_SQL = `DELETE FROM "MediaVariant" v USING (
    SELECT key FROM "MediaVariant" WHERE "mediaId" = $1
    ORDER BY "lastUsedAt" DESC, "createdAt" DESC, key OFFSET $2
  ) doomed WHERE v.key = doomed.key RETURNING v.key`;
const TOTALS_SQL = `SELECT count(*)::int AS count, coalesce(sum(bytes), 0)::float8 AS bytes FROM "MediaVariant"`;

export class VariantRecords {
  constructor(private readonly sql: SqlExecutor) {}

  /** The media item stored under `storageKey`; null when there is none (never uploaded, or deleted). */
  async original(storageKey: string): Promise<OriginalRecord | null> {
    const [row] = await this.query<{ id: string; width: number | null; height: number | null }>(
      ORIGINAL_SQL,
      storageKey,
    );
    if (!row) return null;
    const size = row.width && row.height ? { width: row.width, height: row.height } : null;
    return { mediaId: row.id, size };
  }

  /**
   * Whether the variant stored under `key` has a record (null: none, so it is not servable) and whether
   * its last use is older than TOUCH_INTERVAL_MS (then `touch` it when serving it).
   */
  async record(key: string): Promise<{ stale: boolean } | null> {
    const [row] = await this.query<{ stale: boolean }>(RECORD_SQL, key, TOUCH_INTERVAL_MS / 1000);
    return row ? { stale: row.stale } : null;
  }

  /** Marks the variant as used now. */
  async touch(key: string): Promise<void> {
    await this.query(TOUCH_SQL, key);
  }

  /**
   * Records a variant just stored; false when its media item is gone (deleted while it was computed): the
   * caller then removes the object, which nothing would ever serve or delete.
   */
  async add(key: string, mediaId: string, bytes: number): Promise<boolean> {
    try {
      await this.query(ADD_SQL, key, mediaId, bytes);
      return true;
    } catch (error) {
      if (isForeignKeyViolation(error)) return false;
      throw error;
    }
  }

  /** Drops the records of the original's variants beyond the `keep` most recently used; their keys. */
  async evictBeyond(mediaId: string, keep: number): Promise<string[]> {
    const rows = await this.query<{ key: string }>(EVICT_SQL, mediaId, keep);
    return rows.map((row) => row.key);
  }

  /** Every stored variant, counted, and their bytes (for /metrics). */
  async totals(): Promise<{ count: number; bytes: number }> {
    const [row] = await this.query<{ count: number; bytes: number }>(TOTALS_SQL);
    return { count: row?.count ?? 0, bytes: row?.bytes ?? 0 };
  }

  private query<Row>(text: string, ...params: unknown[]): Promise<Row[]> {
    return this.sql.query<Row>(text, params, { name: statementName(text) });
  }
}

/** PostgreSQL's foreign_key_violation, as both drivers report it. */
function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23503";
}
