// The migration that makes post events name their locales (issue 56): events written before it name
// the translation their data carries (`data.locale`), else the workspace's default locale; they are
// public for that locale when their form was public at the event, or when they are a departure (an
// unpublish or a delete says a public form left); other resources' events name none. On an in-memory
// PGlite, and on PostgreSQL in a schema of its own when DATABASE_URL is set.
import { afterAll, describe, expect, it } from "vitest";
import { applyPendingMigrations } from "../../src/db/migrations.ts";
import { pgExecutor, type SqlExecutor } from "../../src/db/sql-executor.ts";
import {
  inPostgresSchema,
  migrationsBefore,
  onPglite,
  removeMigrationCopies,
} from "../helpers/migration-stores.ts";

const EVENT_LOCALES_MIGRATION = "20261128163000_event_locales";

afterAll(removeMigrationCopies);

const event = (id: string, type: string, data: Record<string, unknown>) =>
  `('${id}', 'w1', '${type}', 'p1', '${JSON.stringify(data)}'::jsonb, now() AT TIME ZONE 'UTC')`;

async function migrateAndCheck(db: SqlExecutor): Promise<void> {
  await applyPendingMigrations(db, { migrationsDir: await migrationsBefore(EVENT_LOCALES_MIGRATION) });
  const past = "2020-01-01T00:00:00.000Z";
  const ahead = "2999-01-01T00:00:00.000Z";
  await db.exec(`
    INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w1', 'Garden', 'garden', now());
    INSERT INTO "Locale" (id, "workspaceId", code, name, "isDefault", "updatedAt")
    VALUES ('l-de', 'w1', 'de', 'German', true, now()), ('l-fr', 'w1', 'fr', 'French', false, now());
    INSERT INTO "Event" (id, "workspaceId", type, "resourceId", data, "createdAt") VALUES
      ${event("evt_1", "post.created", { id: "p1", status: "published", publishedAt: past })},
      ${event("evt_2", "post.updated", { id: "p1", status: "draft", publishedAt: past, locale: "fr" })},
      ${event("evt_3", "post.updated", { id: "p1", status: "published", publishedAt: ahead })},
      ${event("evt_4", "post.unpublished", { id: "p1", slug: "x", locale: "fr" })},
      ${event("evt_5", "tag.created", { id: "t1" })};
  `);
  expect(await applyPendingMigrations(db)).toContain(EVENT_LOCALES_MIGRATION);
  expect(await db.query(`SELECT id, locales, "publicLocales" FROM "Event" ORDER BY id`)).toEqual([
    { id: "evt_1", locales: ["de"], publicLocales: ["de"] },
    { id: "evt_2", locales: ["fr"], publicLocales: [] },
    { id: "evt_3", locales: ["de"], publicLocales: [] },
    { id: "evt_4", locales: ["fr"], publicLocales: ["fr"] },
    { id: "evt_5", locales: [], publicLocales: [] },
  ]);
}

describe("the event locales migration", () => {
  it("names the locale of each post event written before it, and whether it was public — embedded", () =>
    onPglite(migrateAndCheck));

  it.skipIf(!process.env.DATABASE_URL)(
    "names the locale of each post event written before it, and whether it was public — PostgreSQL",
    () => inPostgresSchema((client) => migrateAndCheck(pgExecutor(client))),
  );
});
