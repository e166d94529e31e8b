// Guards against changing schema.prisma without a migration (or editing a migration by hand in a way
// the schema does not describe): the migrations folder must build exactly the modelled database.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultSchemaPath, diffMigrationsToSchema, isEmptyDiff } from "../../src/db/schema-engine.ts";

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("prisma/migrations vs prisma/schema.prisma", () => {
  it("describe the same database (run `npm run migrate:create -- <name>` if this fails)", async () => {
    const sql = await diffMigrationsToSchema();
    // Comparing with "" makes a failure print the missing SQL.
    expect(sql).toBe("");
  });

  it("reports a difference when the schema has a column the migrations lack", async () => {
    const dir = await mkdtemp(join(tmpdir(), "schema-drift-"));
    tempDirs.push(dir);
    const schema = await readFile(defaultSchemaPath, "utf8");
    const drifted = schema.replace(/^model Post \{$/m, "model Post {\n  subtitle String?");
    expect(drifted).not.toBe(schema);
    const schemaPath = join(dir, "schema.prisma");
    await writeFile(schemaPath, drifted);

    const sql = await diffMigrationsToSchema({ schemaPath });
    expect(isEmptyDiff(sql)).toBe(false);
    expect(sql).toContain('ALTER TABLE "Post" ADD COLUMN     "subtitle" TEXT');
  });
});

describe("isEmptyDiff", () => {
  it("treats the engine's empty-migration comment and whitespace as empty", () => {
    expect(isEmptyDiff("")).toBe(true);
    expect(isEmptyDiff("-- This is an empty migration.\n")).toBe(true);
    expect(isEmptyDiff("  /* nothing */\n-- still nothing\n\n")).toBe(true);
    expect(isEmptyDiff('-- AddColumn\nALTER TABLE "Post" ADD COLUMN "x" TEXT;\n')).toBe(false);
  });
});
