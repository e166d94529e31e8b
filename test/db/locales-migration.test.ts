// The migration that gives workspaces their locales (issue 56): a database with workspaces made before
// it gains one default locale, `en` ("English"), per workspace, and the database itself then refuses a
// second default or a second locale of one code. On an in-memory PGlite, and on PostgreSQL in a schema
// of its own when DATABASE_URL is set.
import { afterAll, describe, expect, it } from "vitest";
import { applyPendingMigrations } from "../../src/db/migrations.ts";
import { pgExecutor, type SqlExecutor } from "../../src/db/sql-executor.ts";
import {
  inPostgresSchema,
  migrationsBefore,
  onPglite,
  removeMigrationCopies,
} from "../helpers/migration-stores.ts";

const LOCALES_MIGRATION = "20261128090756_workspace_locales";

afterAll(removeMigrationCopies);

async function expectExistingWorkspacesGetEnglish(db: SqlExecutor): Promise<void> {
  const before = await applyPendingMigrations(db, {
    migrationsDir: await migrationsBefore(LOCALES_MIGRATION),
  });
  expect(before).not.toContain(LOCALES_MIGRATION);
  await db.exec(`
    INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w1', 'Garden', 'garden', now());
    INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w2', 'Kitchen', 'kitchen', now());
  `);

  const applied = await applyPendingMigrations(db);
  expect(applied).toContain(LOCALES_MIGRATION);

  const locales = await db.query<Record<string, unknown>>(
    `SELECT id, "workspaceId", code, name, "isDefault", fallback FROM "Locale" ORDER BY "workspaceId"`,
  );
  expect(locales).toEqual([
    {
      id: expect.stringMatching(/^c[0-9a-z]{24}$/),
      workspaceId: "w1",
      code: "en",
      name: "English",
      isDefault: true,
      fallback: [],
    },
    {
      id: expect.stringMatching(/^c[0-9a-z]{24}$/),
      workspaceId: "w2",
      code: "en",
      name: "English",
      isDefault: true,
      fallback: [],
    },
  ]);
  const [setting] = await db.query<{ slugsUniqueAcrossLocales: boolean }>(
    `SELECT "slugsUniqueAcrossLocales" FROM "Workspace" WHERE id = 'w1'`,
  );
  expect(setting).toEqual({ slugsUniqueAcrossLocales: false });

  // A second default, or a second `en`, in one workspace: refused by the database itself.
  await expect(
    db.exec(`INSERT INTO "Locale" (id, "workspaceId", code, name, "isDefault", "updatedAt")
      VALUES ('l-de', 'w1', 'de', 'German', true, now())`),
  ).rejects.toThrow(/Locale_workspaceId_default_key|duplicate key/);
  await expect(
    db.exec(
      `INSERT INTO "Locale" (id, "workspaceId", code, name, "updatedAt") VALUES ('l-en', 'w1', 'en', 'English', now())`,
    ),
  ).rejects.toThrow(/Locale_workspaceId_code_key|duplicate key/);
  // Another locale that is not the default is fine; deleting the workspace takes its locales along.
  await db.exec(
    `INSERT INTO "Locale" (id, "workspaceId", code, name, "updatedAt") VALUES ('l-fr', 'w1', 'fr', 'French', now())`,
  );
  await db.exec(`DELETE FROM "Workspace" WHERE id = 'w1'`);
  expect(await db.query(`SELECT code FROM "Locale" WHERE "workspaceId" = 'w1'`)).toEqual([]);
}

describe("the workspace locales migration", () => {
  it("gives every existing workspace one default locale, en (English) — embedded", () =>
    onPglite(expectExistingWorkspacesGetEnglish));

  it.skipIf(!process.env.DATABASE_URL)(
    "gives every existing workspace one default locale, en (English) — PostgreSQL",
    () => inPostgresSchema((client) => expectExistingWorkspacesGetEnglish(pgExecutor(client))),
  );
});
