// The service keeps its tables' planner statistics current where autovacuum does not (a new database,
// after a bulk import, PGlite, a server with autovacuum off): src/db/planner-statistics.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createWorkspace } from "../../src/auth/workspaces.ts";
import type { Database } from "../../src/db/database.ts";
import {
  analyzeStaleTables,
  keepPlannerStatistics,
  readTableSizes,
  staleReason,
  type TableSize,
} from "../../src/db/planner-statistics.ts";
import { silentLogger } from "../../src/logger.ts";
import { seedWorkspace } from "../../src/seed/seed-workspace.ts";
import { openTestDatabase, storageMode } from "../helpers/test-database.ts";

const size = (over: Partial<TableSize>): TableSize => ({
  table: "Post",
  rowsAtAnalyze: 1_000,
  pagesAtAnalyze: 100,
  pages: 100,
  modifiedSinceAnalyze: 0,
  columnsWithoutStatistics: 0,
  ...over,
});

describe("when a table's statistics are out of date (autovacuum's rule)", () => {
  it("never, for an empty table", () => {
    expect(staleReason(size({ rowsAtAnalyze: -1, pagesAtAnalyze: 0, pages: 0 }))).toBeNull();
  });

  it("when a table with rows was never analysed", () => {
    expect(staleReason(size({ rowsAtAnalyze: -1, pagesAtAnalyze: 0, pages: 3 }))).toBe("never analysed");
  });

  it("when it has grown by more than 10% (and a few pages) since", () => {
    expect(staleReason(size({ pages: 118 }))).toBeNull();
    expect(staleReason(size({ pages: 119 }))).toBe("grown");
  });

  it("when a column was added since (a migration's): the planner knows nothing of it", () => {
    expect(staleReason(size({ columnsWithoutStatistics: 1 }))).toBe("new columns");
    // An analysis of no rows leaves no statistics on any column: nothing new to learn there.
    expect(staleReason(size({ rowsAtAnalyze: 0, columnsWithoutStatistics: 9 }))).toBeNull();
  });

  it("when more than 50 rows + 10% were changed since, where the statistics collector counts them", () => {
    expect(staleReason(size({ modifiedSinceAnalyze: 150 }))).toBeNull();
    expect(staleReason(size({ modifiedSinceAnalyze: 151 }))).toBe("modified");
  });
});

describe(`analysing stale tables (${storageMode})`, () => {
  let db: Database;
  const postsOf = async () => (await readTableSizes(db.sql)).find((t) => t.table === "Post");
  /**
   * Waits until the Post table reads stale after a seed. Where the new rows fit in free pages only the
   * statistics collector's count of changed rows shows them, and on PostgreSQL each connection reports
   * its counts at most once a second, or after 10 s idle: read at once, they may not be there yet (the
   * service checks again every interval and meets them then).
   */
  const postsReadStale = () =>
    vi.waitFor(async () => expect(staleReason((await postsOf())!)).toMatch(/^(grown|modified)$/), {
      timeout: 15_000,
      interval: 200,
    });

  beforeAll(async () => {
    db = await openTestDatabase();
    const { workspace } = await createWorkspace(db.prisma, "Statistics");
    // Written as the API writes; nothing analyses on the way.
    await seedWorkspace(db.prisma, workspace.id, {
      posts: 60,
      categories: 4,
      tags: 10,
      authors: 3,
      fields: 1,
    });
    // The seed's last counts can still wait in the connection's pending statistics (reported at most
    // once a second): were they reported after the analysis below, they would count as changes since
    // it. Report them now (PostgreSQL 15's pg_stat_force_next_flush: at the end of that statement).
    await db.sql.query("SELECT pg_stat_force_next_flush()");
    await db.sql.query("SELECT 1");
  }, 120_000);
  afterAll(() => db?.close());

  it("analyses the tables a seed filled, then finds nothing left to do", async () => {
    const before = await postsOf();
    expect(before && staleReason(before)).toBeTruthy();

    const analysed = await analyzeStaleTables(db);
    expect(analysed.map((t) => t.table)).toEqual(expect.arrayContaining(["Post", "PostTag", "PostAuthor"]));
    expect((await postsOf())?.rowsAtAnalyze).toBe(60);

    expect(await analyzeStaleTables(db)).toEqual([]);
  });

  it("analyses a table whose rows are unchanged when a migration added a column to it", async () => {
    await analyzeStaleTables(db);
    expect(staleReason((await postsOf())!)).toBeNull();
    await db.sql.exec('ALTER TABLE "Post" ADD COLUMN "statisticsProbe" timestamp(3)');
    try {
      expect((await postsOf())?.columnsWithoutStatistics).toBe(1);
      expect(await analyzeStaleTables(db)).toEqual([{ table: "Post", reason: "new columns" }]);
      expect((await postsOf())?.columnsWithoutStatistics).toBe(0);
      expect(await analyzeStaleTables(db)).toEqual([]);
    } finally {
      await db.sql.exec('ALTER TABLE "Post" DROP COLUMN "statisticsProbe"');
    }
    // A dropped column is no column.
    expect((await postsOf())?.columnsWithoutStatistics).toBe(0);
  });

  it("checks at start, and its stop waits for the analysis under way", async () => {
    const { workspace } = await createWorkspace(db.prisma, "Grown");
    await seedWorkspace(db.prisma, workspace.id, {
      posts: 120,
      categories: 2,
      tags: 4,
      authors: 2,
      fields: 0,
    });
    // 120 new rows on 60 analysed: stale by growth, or by the collector's count of changed rows where
    // the new rows landed in free pages (which happened on PostgreSQL in CI).
    await postsReadStale();

    await keepPlannerStatistics(db, 60_000, silentLogger)();

    expect(staleReason((await postsOf())!)).toBeNull();
    expect((await postsOf())?.rowsAtAnalyze).toBe(180);
  });

  it.runIf(storageMode === "postgres")(
    "leaves the work to the instance that holds the schema's lock",
    async () => {
      const { workspace } = await createWorkspace(db.prisma, "Locked");
      await seedWorkspace(db.prisma, workspace.id, {
        posts: 120,
        categories: 2,
        tags: 4,
        authors: 2,
        fields: 0,
      });
      await postsReadStale();
      const lockSql = "hashtext('planner-statistics ' || current_schema())";
      await db.session(async (other) => {
        await other.query(`SELECT pg_advisory_lock(${lockSql})`);
        try {
          expect(await analyzeStaleTables(db)).toEqual([]);
        } finally {
          await other.query(`SELECT pg_advisory_unlock(${lockSql})`);
        }
      });
      expect((await analyzeStaleTables(db)).map((t) => t.table)).toContain("Post");
    },
  );
});
