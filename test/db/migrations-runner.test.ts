// The runner on an in-memory PGlite (always) and on the real PostgreSQL (when DATABASE_URL is set),
// including the bookkeeping that must stay compatible with `prisma migrate deploy`.
import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPendingMigrations, defaultMigrationsDir } from "../../src/db/migrations.ts";
import { loadSchemaEngine, readMigrationsList } from "../../src/db/schema-engine.ts";
import { pgExecutor, pgliteExecutor, type SqlExecutor } from "../../src/db/sql-executor.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function migrationNames(): Promise<string[]> {
  const entries = await readdir(defaultMigrationsDir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

const tempDirs: string[] = [];
async function copyOfMigrations(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "migrations-"));
  tempDirs.push(dir);
  await cp(defaultMigrationsDir, dir, { recursive: true });
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Inserts a post whose search document the trigger has to build, and returns the ids of matches. */
async function searchPosts(db: SqlExecutor, query: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM "Post" WHERE search @@ websearch_to_tsquery('english', $1) ORDER BY id`,
    [query],
  );
  return rows.map((row) => row.id);
}

async function insertPost(db: SqlExecutor): Promise<void> {
  await db.exec(`
    INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w1', 'Garden', 'garden', now());
    INSERT INTO "Category" (id, "workspaceId", name, slug, "updatedAt") VALUES ('c1', 'w1', 'Tips', 'tips', now());
    INSERT INTO "Post" (id, "workspaceId", slug, title, status, description, content, "publishedAt", "updatedAt", "categoryId")
    VALUES ('p1', 'w1', 'tomatoes', 'Growing tomatoes', 'published', 'How to', '<p>Water the <strong>seedlings</strong> daily</p>', now(), now(), 'c1');
  `);
}

/** The assertions shared by both databases, on a database the migrations were just applied to. */
async function expectSearchTrigger(db: SqlExecutor): Promise<void> {
  await insertPost(db);
  expect(await searchPosts(db, "tomato")).toEqual(["p1"]); // title, stemmed
  expect(await searchPosts(db, "seedlings daily")).toEqual(["p1"]); // content
  expect(await searchPosts(db, "strong")).toEqual([]); // HTML tags are not words
  const [weights] = await db.query<{ search: string }>(
    `SELECT search::text AS search FROM "Post" WHERE id = 'p1'`,
  );
  expect(weights?.search).toContain("'tomato':2A");
  expect(weights?.search).toContain("'seedl':5B");

  await db.exec(`UPDATE "Post" SET title = 'Pruning roses' WHERE id = 'p1'`);
  expect(await searchPosts(db, "tomato")).toEqual([]);
  expect(await searchPosts(db, "roses")).toEqual(["p1"]);
}

describe("applyPendingMigrations on PGlite", () => {
  let pglite: PGlite;
  let db: SqlExecutor;
  const logs: string[] = [];
  const log = (msg: string) => logs.push(msg);

  beforeAll(async () => {
    pglite = await PGlite.create();
    db = pgliteExecutor(pglite);
  });
  afterAll(async () => {
    await pglite.close();
  });

  it("applies every migration to a fresh database", async () => {
    const applied = await applyPendingMigrations(db, { log });
    expect(applied).toEqual(await migrationNames());
    expect(logs).toContain(`Applied migration ${applied[0]}`);

    const tables = await db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()",
    );
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining([
        "Workspace",
        "Post",
        "Category",
        "Tag",
        "PostTag",
        "PostFieldValue",
        "_prisma_migrations",
      ]),
    );
  });

  it("keeps Post.search current through the trigger", async () => {
    await expectSearchTrigger(db);
  });

  it("applies nothing the second time", async () => {
    expect(await applyPendingMigrations(db, { log })).toEqual([]);
    expect(logs.at(-1)).toBe("No pending migrations");
  });

  it("records each migration the way Prisma does", async () => {
    const rows = await db.query<{
      id: string;
      checksum: string;
      migration_name: string;
      finished_at: Date | null;
      started_at: Date;
      logs: string | null;
      rolled_back_at: Date | null;
      applied_steps_count: number;
    }>("SELECT * FROM _prisma_migrations ORDER BY migration_name");
    const names = await migrationNames();
    expect(rows.map((row) => row.migration_name)).toEqual(names);
    for (const row of rows) {
      const bytes = await readFile(join(defaultMigrationsDir, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(row.id).toMatch(UUID);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row).toMatchObject({ logs: null, rolled_back_at: null, applied_steps_count: 1 });
    }
  });

  it("leaves a history Prisma's own schema engine finds complete (what `prisma migrate deploy` checks)", async () => {
    const SchemaEngine = await loadSchemaEngine();
    const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(pglite));
    const engine = await SchemaEngine.new({ datamodels: undefined }, () => {}, adapter);
    try {
      const migrationsList = await readMigrationsList(defaultMigrationsDir);
      const filters = { externalTables: [], externalEnums: [] };
      expect(
        await engine.diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters }),
      ).toEqual({
        editedMigrationNames: [],
        failedMigrationNames: [],
        hasMigrationsTable: true,
        history: null,
      });
      expect(await engine.applyMigrations({ migrationsList, filters })).toEqual({
        appliedMigrationNames: [],
      });
    } finally {
      engine.free();
    }
  });

  it("accepts the same migration checked out with CRLF line endings, as Prisma does", async () => {
    const dir = await copyOfMigrations();
    const [first] = await migrationNames();
    const file = join(dir, first!, "migration.sql");
    await writeFile(file, (await readFile(file, "utf8")).replace(/\n/g, "\r\n"));
    expect(await applyPendingMigrations(db, { migrationsDir: dir })).toEqual([]);
  });

  it("refuses a migration edited after it was applied", async () => {
    const dir = await copyOfMigrations();
    const [first] = await migrationNames();
    const file = join(dir, first!, "migration.sql");
    await writeFile(file, `${await readFile(file, "utf8")}\nCREATE TABLE "Sneaky" (id int);\n`);
    await expect(applyPendingMigrations(db, { migrationsDir: dir })).rejects.toThrow(
      `Migration ${first} was modified after it was applied`,
    );
    expect(await db.query(`SELECT to_regclass('"Sneaky"') AS t`)).toEqual([{ t: null }]);
  });

  it("rolls a failing migration back entirely and records nothing", async () => {
    const dir = await copyOfMigrations();
    await mkdir(join(dir, "29991231000000_broken"));
    await writeFile(
      join(dir, "29991231000000_broken", "migration.sql"),
      `CREATE TABLE "Broken" (id int);\nALTER TABLE "Post" ADD COLUMN "nope" no_such_type;\n`,
    );
    await expect(applyPendingMigrations(db, { migrationsDir: dir })).rejects.toThrow(
      /Migration 29991231000000_broken failed and was rolled back: .*no_such_type/,
    );
    expect(await db.query(`SELECT to_regclass('"Broken"') AS t`)).toEqual([{ t: null }]);
    expect(
      await db.query("SELECT 1 FROM _prisma_migrations WHERE migration_name = '29991231000000_broken'"),
    ).toEqual([]);
  });

  it("refuses to run after a migration failed earlier (e.g. under `prisma migrate deploy`)", async () => {
    await db.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name) VALUES (gen_random_uuid(), 'x', '29990101000000_half_done')",
    );
    try {
      await expect(applyPendingMigrations(db)).rejects.toThrow(
        "Migration 29990101000000_half_done failed earlier",
      );
    } finally {
      await db.query("DELETE FROM _prisma_migrations WHERE migration_name = '29990101000000_half_done'");
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)("applyPendingMigrations on PostgreSQL", () => {
  // Each client has its own session; both confine themselves to a schema of their own.
  const schema = `test_mig_${randomBytes(6).toString("hex")}`;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      clients.push(client);
    }
    await clients[0]!.query(`CREATE SCHEMA "${schema}"`);
    for (const client of clients) await client.query(`SET search_path TO "${schema}"`);
  });
  afterAll(async () => {
    await clients[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await Promise.all(clients.map((client) => client.end()));
  });

  it("applies each migration once even when two instances start together", async () => {
    const [a, b] = clients.map((client) => pgExecutor(client));
    const results = await Promise.all([applyPendingMigrations(a!), applyPendingMigrations(b!)]);
    expect(results.flat()).toEqual(await migrationNames());

    // Everything landed in the test's schema (other test files may have their own copies elsewhere).
    const located = await clients[0]!.query<{ schema: string }>(
      `SELECT relnamespace::regnamespace::text AS schema FROM pg_class
       WHERE oid IN (to_regclass('"Post"'), to_regclass('_prisma_migrations'))`,
    );
    expect(located.rows).toEqual([{ schema }, { schema }]);

    // The advisory lock was released: a later run is not blocked and finds nothing to do.
    expect(await applyPendingMigrations(b!)).toEqual([]);
  });

  it("keeps Post.search current through the trigger", async () => {
    await expectSearchTrigger(pgExecutor(clients[0]!));
  });
});

describe("data migrations", () => {
  it("keeps every tag assignment when post ↔ tag becomes the PostTag model", async () => {
    const pglite = await PGlite.create();
    try {
      const db = pgliteExecutor(pglite);
      // The history up to the migration before the change, applied from a copy of the folder.
      const before = await copyOfMigrations();
      const names = await migrationNames();
      const change = names.find((name) => name.endsWith("_post_tag_join_model"));
      expect(change).toBeDefined();
      for (const name of names.filter((n) => n >= (change as string)))
        await rm(join(before, name), { recursive: true });
      await applyPendingMigrations(db, { migrationsDir: before });

      await db.exec(`
        INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('ws', 'W', 'w', now());
        INSERT INTO "Category" (id, "workspaceId", name, slug, "updatedAt") VALUES ('cat', 'ws', 'C', 'c', now());
        INSERT INTO "Tag" (id, "workspaceId", name, slug, "updatedAt")
          VALUES ('tag-1', 'ws', 'One', 'one', now()), ('tag-2', 'ws', 'Two', 'two', now());
        INSERT INTO "Post" (id, "workspaceId", slug, title, status, description, content, "publishedAt", "updatedAt", "categoryId")
          VALUES ('post', 'ws', 'p', 'P', 'published', 'd', '<p>c</p>', now(), now(), 'cat');
        INSERT INTO "_PostToTag" ("A", "B") VALUES ('post', 'tag-1'), ('post', 'tag-2');`);

      expect(await applyPendingMigrations(db)).toContain(change);
      const links = await db.query<{ postId: string; tagId: string }>(
        `SELECT "postId", "tagId" FROM "PostTag" ORDER BY "tagId"`,
      );
      expect(links).toEqual([
        { postId: "post", tagId: "tag-1" },
        { postId: "post", tagId: "tag-2" },
      ]);
      // The constraints came along: deleting the tag detaches it from the post.
      await db.exec(`DELETE FROM "Tag" WHERE id = 'tag-1'`);
      expect(await db.query(`SELECT "tagId" FROM "PostTag"`)).toEqual([{ tagId: "tag-2" }]);
    } finally {
      await pglite.close();
    }
  });
});
