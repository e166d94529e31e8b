// After a bulk import the planner's statistics are current (issue 40: "the next list reads are as fast as
// after normal writes"): the import analyses the tables it left stale (import-run.ts, through
// planner-statistics.ts), rather than leaving them to an autovacuum that may be off, late, or (PGlite)
// absent. Shown on the planner's own figures: the row count it plans "Post" with is the table's. Also
// for the CLI as users run it, which on the embedded store analyses in a worker of its own after the
// import's (cli/main.ts).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { analyzeStaleTables, readTableSizes, staleReason } from "../../src/db/planner-statistics.ts";
import { seedWorkspace } from "../../src/seed/seed-workspace.ts";
import { exportToFile, importInto, type TransferContext } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { dropTestSchema } from "../helpers/test-database.ts";

let app: TestApp;
const folder = mkdtempSync(path.join(tmpdir(), "import-statistics-"));
const archive = path.join(folder, "site.tar.gz");
const context = (): TransferContext => ({ db: app.db, config: app.config, storage: app.mediaStorage });
const SIZES = { posts: 150, categories: 3, tags: 6, authors: 2, fields: 1, paragraphs: 1 };

/** What the planner believes "Post" holds, and what it holds. */
async function plannedAndActualPosts(db: Database = app.db): Promise<{ planned: number; actual: number }> {
  const [row] = await db.sql.query<{ planned: number; actual: number }>(
    `SELECT (SELECT reltuples FROM pg_class WHERE oid = '"Post"'::regclass)::float8 AS planned,
            (SELECT count(*) FROM "Post")::float8 AS actual`,
  );
  return row as { planned: number; actual: number };
}

beforeAll(async () => {
  app = await startTestApp();
  const source = await app.workspace("Source");
  await seedWorkspace(app.db.prisma, source.id, SIZES);
  await exportToFile(context(), { ...source, name: "Source" }, archive);
  // Statistics current before the import: the source's posts counted, nothing stale.
  await analyzeStaleTables(app.db);
  expect(await plannedAndActualPosts()).toEqual({ planned: SIZES.posts, actual: SIZES.posts });
}, 120_000);

const cliSchema = `test_cli_statistics_${randomBytes(4).toString("hex")}`;

afterAll(async () => {
  await app?.close();
  rmSync(folder, { recursive: true, force: true });
  await dropTestSchema(cliSchema);
});

it("leaves the planner's statistics current: the imported rows counted, no table left stale", async () => {
  const target = await app.workspace("Target");
  const summary = await importInto(
    context(),
    { ...target, name: "Target" },
    { from: "archive", location: archive },
    { dryRun: false, webhooks: false },
  );
  expect(summary.byKind.post?.created).toBe(SIZES.posts);
  // The import doubled "Post": without an ANALYZE after it, the planner would still plan with 150 rows.
  expect(await plannedAndActualPosts()).toEqual({ planned: 2 * SIZES.posts, actual: 2 * SIZES.posts });
  expect(await analyzeStaleTables(app.db)).toEqual([]);
}, 120_000);

it("the CLI's import leaves them current too, on a store of its own", async () => {
  // A data folder (or schema) of its own: the embedded one opened by the CLI alone, as users run it.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: path.join(folder, "cli-data"),
    LOG_LEVEL: "silent",
    ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: cliSchema } : {}),
  };
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ["bin/content-gateway.mjs", ...args], { env, maxBuffer: 16 << 20 });
  const created = JSON.parse((await cli("workspace", "create", "Target")).stdout);
  const summary = JSON.parse(
    (await cli("import", archive, "--workspace", created.workspace.slug, "--no-webhooks")).stdout,
  );
  expect(summary.byKind.post.created).toBe(SIZES.posts);
  const { DATA_DIR, DATABASE_URL, DATABASE_SCHEMA } = env;
  const db = await openDatabase(
    loadConfig({ DATA_DIR, DATABASE_URL, DATABASE_SCHEMA, LOG_LEVEL: "silent" }).database,
  );
  try {
    expect(await plannedAndActualPosts(db)).toEqual({ planned: SIZES.posts, actual: SIZES.posts });
    // Read, not analysed here: analyzeStaleTables would refresh what it finds stale. On a PostgreSQL
    // server the CLI's backends report their row changes to the statistics system as they exit, after
    // the import's ANALYZE has read those rows (PostgreSQL 15 flushes them up to a second late), so a
    // table's modification count may lag there (the server's next check analyses it again); its row
    // count, what the planner plans with, may not. The embedded store is one backend: nothing lags.
    const lagging = (reason: string | null) => reason === "modified" && Boolean(process.env.DATABASE_URL);
    const stale = (await readTableSizes(db.sql)).filter((size) => {
      const reason = staleReason(size);
      return reason !== null && !lagging(reason);
    });
    expect(stale).toEqual([]);
  } finally {
    await db.close();
  }
}, 120_000);
