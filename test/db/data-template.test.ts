// A new embedded data folder starts as a copy of the data template (src/db/data-template.ts): the
// template's migrations must be the first of the project's, unedited, and made by this PGlite; the
// migrations newer than the template then run through the normal runner. Builds its own templates in
// a temporary folder (never the install's dist/pgdata-template).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUsableTemplate, isNewDataFolder, templatePaths } from "../../src/db/data-template.ts";
import { buildDataTemplate } from "../../src/db/data-template-builder.ts";
import { openDatabase } from "../../src/db/database.ts";
import { defaultMigrationsDir, type MigrationFile, readMigrations } from "../../src/db/migrations.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "content-template-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The project's migrations but the last two: a template made before they were written. */
const OLDER = 2;
let migrations: MigrationFile[];
let templateRoot: string;

beforeAll(async () => {
  migrations = await readMigrations();
  const olderDir = path.join(scratch, "older-migrations");
  for (const migration of migrations.slice(0, -OLDER)) {
    mkdirSync(path.join(olderDir, migration.name), { recursive: true });
    cpSync(path.join(defaultMigrationsDir, migration.name), path.join(olderDir, migration.name), {
      recursive: true,
    });
  }
  templateRoot = path.join(scratch, "template");
  await buildDataTemplate(templateRoot, { migrationsDir: olderDir });
}, 60_000);

describe("the data template of new embedded data folders", () => {
  it("records what it holds: this PGlite and its migrations with their checksums", () => {
    const template = findUsableTemplate(templateRoot, migrations);
    expect(template?.manifest.migrations).toEqual(
      migrations.slice(0, -OLDER).map(({ name, checksum }) => ({ name, checksum })),
    );
  });

  it("starts a new folder from the template and applies only the newer migrations", async () => {
    const dir = path.join(scratch, "new-folder");
    const logged: string[] = [];
    const logger = { debug() {}, info: (msg: string) => logged.push(msg), warn() {}, error() {} };
    const db = await openDatabase({ kind: "embedded", dir }, { dataTemplateRoot: templateRoot, logger });
    try {
      expect(logged[0]).toBe(
        `Created the database from the data template (${migrations.length - OLDER} of ${migrations.length} migrations applied)`,
      );
      expect(logged.slice(1)).toEqual(
        migrations.slice(-OLDER).map(({ name }) => `Applied migration ${name}`),
      );
      expect(await db.migrate()).toEqual([]);
      // The copy is a working database: the schema of every migration is there and writable.
      await db.prisma.workspace.create({ data: { name: "From the template", slug: "from-template" } });
      expect(await db.prisma.workspace.count()).toBe(1);
    } finally {
      await db.close();
    }
    expect(isNewDataFolder(dir)).toBe(false);
  }, 60_000);

  it("is not used when a migration it holds was edited since", () => {
    const edited = migrations.map((migration, index) =>
      index === 0 ? { ...migration, checksum: "0".repeat(64) } : migration,
    );
    expect(findUsableTemplate(templateRoot, edited)).toBeNull();
  });

  it("is not used when another PGlite version made it", () => {
    const other = path.join(scratch, "other-pglite");
    cpSync(templateRoot, other, { recursive: true });
    const manifestFile = templatePaths(other).manifest;
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { pglite: string };
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, pglite: "0.0.1" }));
    expect(findUsableTemplate(other, migrations)).toBeNull();
  });

  it("is not used where there is none", () => {
    expect(findUsableTemplate(path.join(scratch, "nowhere"), migrations)).toBeNull();
  });

  it("is built by the first new folder that finds none (a fresh install that skipped the build)", async () => {
    const missing = path.join(scratch, "built-on-demand");
    const logged: string[] = [];
    const logger = { debug() {}, info: (msg: string) => logged.push(msg), warn() {}, error() {} };
    const db = await openDatabase(
      { kind: "embedded", dir: path.join(scratch, "first-folder") },
      { dataTemplateRoot: missing, logger },
    );
    await db.close();
    expect(logged.slice(0, 2)).toEqual([
      `No usable data template in ${missing}: building it (once per install)`,
      `Created the database from the data template (${migrations.length} of ${migrations.length} migrations applied)`,
    ]);
    expect(findUsableTemplate(missing, migrations)).not.toBeNull();
  }, 60_000);
});
