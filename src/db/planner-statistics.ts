// Keeps PostgreSQL's planner statistics (and visibility map) current when nothing else does (issue 39).
//
// Why the service analyses its own tables: the read statements (post-rows.ts) are planned from the
// tables' statistics, and a table nobody has analysed plans them badly: on 2,000 posts a list of 100
// took 130 ms in the database instead of 13, a tag filter 85 ms instead of 9 (nested loops re-reading
// each post's aggregated relations, an id array scanned once per post). Autovacuum is what normally
// analyses, but a new database, a restored backup or a bulk import is without statistics until it gets
// there; some servers run with it off or tuned down (this project's CI machine does), and the embedded
// PGlite runs as one process whose autovacuum launcher never starts. The relations are now per-post
// subqueries (post-rows-sql.ts), which plan the same either way, but the page's ids, its count and the
// filters still lean on estimates and on the visibility map: the service makes sure both exist, by the
// rules autovacuum itself applies.
import type { Logger } from "../logger.ts";
import type { Database } from "./database.ts";
import type { SqlExecutor } from "./sql-executor.ts";

/** One table of the service's schema as the catalog describes it now and at its last analysis. */
export interface TableSize {
  table: string;
  /** pg_class.reltuples: rows counted by the last ANALYZE or VACUUM; negative when never. */
  rowsAtAnalyze: number;
  /** pg_class.relpages: pages at that moment. */
  pagesAtAnalyze: number;
  /** Pages the table has now (its file's size), which needs no statistics collector. */
  pages: number;
  /**
   * Rows inserted, updated or deleted since the last analysis, as the statistics collector counts
   * them (pg_stat_user_tables; 0 where it does not count, as in PGlite).
   */
  modifiedSinceAnalyze: number;
  /**
   * Columns the statistics know nothing of: added since the last analysis (a migration's new column).
   * The planner guesses about them, and on a table whose rows never change nothing else brings it to
   * analyse them: after issue 56's migration added "unpublishAt", the public list's count of posts whose
   * unpublishing has passed scanned every published post's index entry (1.1 ms) instead of finding none
   * in the unpublishAt index (0.015 ms), on every list, until a tenth of the posts had changed.
   */
  columnsWithoutStatistics: number;
}

export type StaleReason = "never analysed" | "grown" | "modified" | "new columns";

/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor's defaults: the same rule. */
const ANALYZE_THRESHOLD_ROWS = 50;
const ANALYZE_SCALE_FACTOR = 0.1;
/** Growth in pages that counts as a change of size: 10%, and a few pages for small tables. */
const GROWTH_THRESHOLD_PAGES = 8;

/** Why a table's statistics are out of date, or null when they are current (or the table is empty). */
export function staleReason(size: TableSize): StaleReason | null {
  if (size.pages === 0) return null;
  if (size.rowsAtAnalyze < 0) return "never analysed";
  // An analysis that saw rows leaves statistics on every column (even an all-null one): none means new.
  if (size.rowsAtAnalyze > 0 && size.columnsWithoutStatistics > 0) return "new columns";
  if (size.pages > size.pagesAtAnalyze * (1 + ANALYZE_SCALE_FACTOR) + GROWTH_THRESHOLD_PAGES) return "grown";
  const modifiedLimit = ANALYZE_THRESHOLD_ROWS + ANALYZE_SCALE_FACTOR * size.rowsAtAnalyze;
  return size.modifiedSinceAnalyze > modifiedLimit ? "modified" : null;
}

// The service's own tables: those of the schema it runs in (search_path), not Prisma's bookkeeping.
const TABLE_SIZES_SQL = `SELECT c.relname AS "table",
       c.reltuples::float8 AS "rowsAtAnalyze",
       c.relpages::int AS "pagesAtAnalyze",
       (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages,
       coalesce(s.n_mod_since_analyze, 0)::float8 AS "modifiedSinceAnalyze",
       (SELECT count(*) FROM pg_attribute a
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND coalesce(a.attstattarget, -1) <> 0
           AND NOT EXISTS (SELECT 1 FROM pg_stats st
                            WHERE st.schemaname = n.nspname AND st.tablename = c.relname AND st.attname = a.attname)
       )::int AS "columnsWithoutStatistics"
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
 WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'
 ORDER BY c.relname`;

export async function readTableSizes(sql: SqlExecutor): Promise<TableSize[]> {
  return sql.query<TableSize>(TABLE_SIZES_SQL);
}

/** The schema's advisory lock: instances on other schemas of the same server do not wait for it. */
const LOCK_KEY = "hashtext('planner-statistics ' || current_schema())";

export interface AnalysedTable {
  table: string;
  reason: StaleReason;
}

/**
 * Analyses every table of the schema whose statistics are out of date; returns them. With several
 * instances on one database one analyses at a time (a session advisory lock per schema): an instance
 * that finds the lock taken returns nothing, the other is already at it.
 */
export async function analyzeStaleTables(db: Database): Promise<AnalysedTable[]> {
  return db.session(async (sql) => {
    const [lock] = await sql.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEY}) AS locked`);
    if (!lock?.locked) return [];
    try {
      const stale = (await readTableSizes(sql)).flatMap((size) => {
        const reason = staleReason(size);
        return reason ? [{ table: size.table, reason }] : [];
      });
      // One statement per table, so a table dropped meanwhile fails alone. VACUUM too, as autovacuum
      // would: it sets the visibility map that lets a count be an index-only scan. Analysed but never
      // vacuumed, the list page's count of published posts fell back to reading every row of "Post"
      // (2,000 posts: PostgreSQL's CPU per list of 10 was 2.4× the vacuumed run's, bench:peers --no-analyze).
      for (const { table } of stale) await sql.exec(`VACUUM (ANALYZE) ${quoteIdentifier(table)}`);
      return stale;
    } finally {
      await sql.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`);
    }
  });
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Checks at start (after migrations, a restore, an import made while the service was down) and then
 * every `intervalMs` (0: never); the timer never keeps the process alive. Returns the stop, which
 * waits for an analysis under way (so the database can be closed after it).
 */
export function keepPlannerStatistics(db: Database, intervalMs: number, logger: Logger): () => Promise<void> {
  if (intervalMs <= 0) return async () => {};
  let running: Promise<void> | null = null;
  const run = () => {
    // A slow ANALYZE is not started again beside itself.
    running ??= analyzeStaleTables(db)
      .then(
        (analysed) => {
          if (analysed.length > 0) logger.info("analysed tables for the query planner", { analysed });
        },
        (error: unknown) =>
          logger.warn("analysing tables for the query planner failed", {
            error: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => {
        running = null;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
