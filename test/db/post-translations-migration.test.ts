// The migration that gives posts translations (issue 56): posts made before it are their workspace's
// default locale's translation (their slugs registered as the default's), and the database itself keeps
// the slug rules in both settings — unique per locale by default, across locales when the workspace says
// so — searches each translation in its locale's text-search configuration, and refuses a translation
// in the default locale. On an in-memory PGlite, and on PostgreSQL in a schema of its own when
// DATABASE_URL is set (there also two concurrent writes of one slug: one commits, the other fails).
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { applyPendingMigrations } from "../../src/db/migrations.ts";
import { pgExecutor, type SqlExecutor } from "../../src/db/sql-executor.ts";
import {
  inPostgresSchema,
  migrationsBefore,
  onPglite,
  removeMigrationCopies,
} from "../helpers/migration-stores.ts";

const TRANSLATIONS_MIGRATION = "20261128124420_post_translations";

afterAll(removeMigrationCopies);

const translation = (post: string, locale: string, slug: string, title = "Die Häuser", workspace = "w1") =>
  `INSERT INTO "PostTranslation" ("postId", "workspaceId", locale, slug, title, description, content, status,
     "publishedAt", "updatedAt")
   VALUES ('${post}', '${workspace}', '${locale}', '${slug}', '${title}', '', '<p>Wir laufen</p>', 'draft', now(), now())`;

/** Migrates a database holding one workspace with two posts, then checks the rules on it. */
async function migrateAndCheck(db: SqlExecutor): Promise<void> {
  await applyPendingMigrations(db, { migrationsDir: await migrationsBefore(TRANSLATIONS_MIGRATION) });
  await db.exec(`
    INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w1', 'Garden', 'garden', now());
    INSERT INTO "Category" (id, "workspaceId", name, slug, "updatedAt") VALUES ('c1', 'w1', 'Tips', 'tips', now());
    INSERT INTO "Post" (id, "workspaceId", slug, title, status, description, content, "publishedAt", "updatedAt", "categoryId")
    VALUES ('p1', 'w1', 'hello', 'Hello', 'published', '', '<p>x</p>', now(), now(), 'c1'),
           ('p2', 'w1', 'second', 'Second', 'draft', '', '<p>y</p>', now(), now(), 'c1');
  `);
  expect(await applyPendingMigrations(db)).toContain(TRANSLATIONS_MIGRATION);

  // Existing posts: their slugs are the default locale's.
  expect(await db.query(`SELECT "postId", locale, scope, slug FROM "PostSlug" ORDER BY "postId"`)).toEqual([
    { postId: "p1", locale: "", scope: "", slug: "hello" },
    { postId: "p2", locale: "", scope: "", slug: "second" },
  ]);

  await db.exec(`INSERT INTO "Locale" (id, "workspaceId", code, name, "updatedAt")
    VALUES ('l-de', 'w1', 'de', 'German', now()), ('l-fr', 'w1', 'fr', 'French', now()),
           ('l-tlh', 'w1', 'tlh', 'Klingon', now())`);

  // Per locale (the default setting): the default's slug again in German is fine, twice in German not.
  await db.exec(translation("p1", "de", "hello"));
  await expect(db.exec(translation("p2", "de", "hello"))).rejects.toThrow(/duplicate key|unique/i);
  await db.exec(translation("p2", "fr", "hello"));
  // A post slug the German translation already holds is still free in the default locale's scope.
  await db.exec(`UPDATE "Post" SET slug = 'second-post' WHERE id = 'p2'`);
  expect(
    await db.query(`SELECT "postId", locale, scope, slug FROM "PostSlug" ORDER BY "postId", locale`),
  ).toEqual([
    { postId: "p1", locale: "", scope: "", slug: "hello" },
    { postId: "p1", locale: "de", scope: "de", slug: "hello" },
    { postId: "p2", locale: "", scope: "", slug: "second-post" },
    { postId: "p2", locale: "fr", scope: "fr", slug: "hello" },
  ]);

  // Search: German stems German ("Häuser" → "haus", "laufen" → "lauf"); a language PostgreSQL does not
  // know keeps its words as they are.
  const [german] = await db.query<{ matches: boolean; english: boolean }>(
    `SELECT search @@ websearch_to_tsquery('german', 'Haus laufen') AS matches,
            search @@ to_tsquery('english', 'hauser') AS english
       FROM "PostTranslation" WHERE "postId" = 'p1' AND locale = 'de'`,
  );
  expect(german).toEqual({ matches: true, english: false });
  await db.exec(translation("p1", "tlh", "qapla", "Qapla batlh"));
  const [klingon] = await db.query<{ search: string }>(
    `SELECT search::text AS search FROM "PostTranslation" WHERE "postId" = 'p1' AND locale = 'tlh'`,
  );
  expect(klingon?.search).toBe("'batlh':2A 'laufen':4B 'qapla':1A 'wir':3B");
  // Editing the title rebuilds the document; a status change alone leaves it.
  await db.exec(`UPDATE "PostTranslation" SET title = 'Gärten' WHERE "postId" = 'p1' AND locale = 'de'`);
  const [edited] = await db.query<{ search: string }>(
    `SELECT search::text AS search FROM "PostTranslation" WHERE "postId" = 'p1' AND locale = 'de'`,
  );
  expect(edited?.search).toBe("'gart':1A 'lauf':3B");

  // The default locale's translation is the post itself: a row for it is refused.
  await db.exec(`INSERT INTO "Locale" (id, "workspaceId", code, name, "isDefault", "updatedAt")
    VALUES ('l-en', 'w1', 'en', 'English', true, now())`);
  await expect(db.exec(translation("p2", "en", "zweiter"))).rejects.toThrow(/is the default/);
  // Nor may a translation name another workspace than its post's.
  await db.exec(`INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w2', 'Other', 'other', now());
    INSERT INTO "Locale" (id, "workspaceId", code, name, "updatedAt") VALUES ('l2-de', 'w2', 'de', 'German', now())`);
  await expect(db.exec(translation("p2", "de", "x", "X", "w2"))).rejects.toThrow(/another workspace/);

  // Removing a translation frees its slug.
  await db.exec(`DELETE FROM "PostTranslation" WHERE "postId" = 'p2' AND locale = 'fr'`);
  expect(await db.query(`SELECT locale FROM "PostSlug" WHERE "postId" = 'p2'`)).toEqual([{ locale: "" }]);

  // Across locales: every slug in one scope. The German "hello" now collides with the default's, so the
  // setting is refused by the same index (the service checks first: src/content/posts/post-slugs.ts).
  await db.exec(`UPDATE "Workspace" SET "slugsUniqueAcrossLocales" = true WHERE id = 'w1'`);
  await expect(
    db.exec(`UPDATE "PostSlug" SET scope = '' WHERE "workspaceId" = 'w1' AND locale <> ''`),
  ).rejects.toThrow(/duplicate key|unique/i);
  await db.exec(`UPDATE "PostTranslation" SET slug = 'hallo' WHERE "postId" = 'p1' AND locale = 'de'`);
  await db.exec(`UPDATE "PostSlug" SET scope = '' WHERE "workspaceId" = 'w1' AND locale <> ''`);
  // Now a French "hallo" (German's) or "second-post" (the default's) is refused; a new one is not.
  await expect(db.exec(translation("p2", "fr", "hallo"))).rejects.toThrow(/duplicate key|unique/i);
  await expect(db.exec(translation("p2", "fr", "second-post"))).rejects.toThrow(/duplicate key|unique/i);
  await db.exec(translation("p2", "fr", "deuxieme"));
  // And a new post cannot take a translation's slug either.
  await expect(
    db.exec(`INSERT INTO "Post" (id, "workspaceId", slug, title, status, description, content, "publishedAt", "updatedAt", "categoryId")
      VALUES ('p3', 'w1', 'deuxieme', 'Third', 'draft', '', '<p>z</p>', now(), now(), 'c1')`),
  ).rejects.toThrow(/duplicate key|unique/i);

  // Removing a locale removes its translations and their slugs; removing the post, all of it.
  await db.exec(`DELETE FROM "Locale" WHERE id = 'l-fr'`);
  expect(await db.query(`SELECT locale FROM "PostTranslation" WHERE "postId" = 'p2'`)).toEqual([]);
  await db.exec(`DELETE FROM "Post" WHERE id = 'p1'`);
  expect(await db.query(`SELECT 1 FROM "PostTranslation" WHERE "postId" = 'p1'`)).toEqual([]);
  expect(await db.query(`SELECT 1 FROM "PostSlug" WHERE "postId" = 'p1'`)).toEqual([]);
}

describe("the post translations migration", () => {
  it("keeps existing posts as the default locale's and the slug and search rules in the database — embedded", () =>
    onPglite(migrateAndCheck));

  it.skipIf(!process.env.DATABASE_URL)(
    "keeps existing posts as the default locale's and the slug and search rules in the database — PostgreSQL",
    () => inPostgresSchema((client) => migrateAndCheck(pgExecutor(client))),
  );

  it.skipIf(!process.env.DATABASE_URL)(
    "lets one of two concurrent writes of a slug commit and fails the other, in both settings — PostgreSQL",
    () =>
      inPostgresSchema(async (client, schema) => {
        await applyPendingMigrations(pgExecutor(client));
        await client.query(`
          INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w1', 'Garden', 'garden', now());
          INSERT INTO "Locale" (id, "workspaceId", code, name, "isDefault", "updatedAt")
          VALUES ('l-en', 'w1', 'en', 'English', true, now()), ('l-de', 'w1', 'de', 'German', false, now());
          INSERT INTO "Category" (id, "workspaceId", name, slug, "updatedAt") VALUES ('c1', 'w1', 'Tips', 'tips', now());
          INSERT INTO "Post" (id, "workspaceId", slug, title, status, description, content, "publishedAt", "updatedAt", "categoryId")
          VALUES ('p1', 'w1', 'one', 'One', 'draft', '', '<p>x</p>', now(), now(), 'c1'),
                 ('p2', 'w1', 'two', 'Two', 'draft', '', '<p>x</p>', now(), now(), 'c1');`);
        const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await other.connect();
        try {
          await other.query(`SET search_path TO "${schema}"`);
          const race = async (first: string, second: string) => {
            await client.query("BEGIN");
            await other.query("BEGIN");
            await client.query(first);
            // The second waits on the first's uncommitted index entry, then fails when it commits.
            const waiting = other.query(second).then(
              () => "committed",
              (error: Error) => error.message,
            );
            await client.query("COMMIT");
            const outcome = await waiting;
            await other.query(outcome === "committed" ? "COMMIT" : "ROLLBACK");
            return outcome;
          };
          // Per locale: two German translations of one slug.
          expect(await race(translation("p1", "de", "gleich"), translation("p2", "de", "gleich"))).toMatch(
            /duplicate key/,
          );
          // Across locales: a German translation and a new post (the default locale) of one slug.
          await client.query(`UPDATE "Workspace" SET "slugsUniqueAcrossLocales" = true WHERE id = 'w1'`);
          expect(
            await race(
              translation("p2", "de", "across"),
              `INSERT INTO "Post" (id, "workspaceId", slug, title, status, description, content, "publishedAt", "updatedAt", "categoryId")
               VALUES ('p3', 'w1', 'across', 'Three', 'draft', '', '<p>x</p>', now(), now(), 'c1')`,
            ),
          ).toMatch(/duplicate key/);
          const rows = await client.query(
            `SELECT "postId", locale, slug FROM "PostSlug" WHERE slug IN ('gleich', 'across')`,
          );
          expect(rows.rows).toEqual(
            expect.arrayContaining([
              { postId: "p1", locale: "de", slug: "gleich" },
              { postId: "p2", locale: "de", slug: "across" },
            ]),
          );
          expect(rows.rows).toHaveLength(2);
        } finally {
          await other.end();
        }
      }),
  );
});
