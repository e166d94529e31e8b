// Every change to stored content goes through the one writer (src/content/writer.ts): only it opens
// transactions, no Prisma write is made on the app's client directly (writes use a unit of work's
// transaction client, `tx`), and hand-written SQL that changes rows lives in src/content only.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");
/**
 * Migrations change the schema, not content, and run before any writer exists. An image's variants
 * are derived files, kept and evicted like a cache: their records are bookkeeping of the media store
 * (no event, nothing a client wrote), removed with their original by the database (ON DELETE CASCADE).
 */
const NOT_CONTENT = [
  path.join("db", "migrations.ts"),
  path.join("db", "schema-engine.ts"),
  path.join("media", "variant-records.ts"),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "generated" ? [] : sourceFiles(full);
    return full.endsWith(".ts") && !NOT_CONTENT.includes(path.relative(SRC, full)) ? [full] : [];
  });
}

const lines = sourceFiles(SRC).flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .map((text, index) => ({ where: `${path.relative(SRC, file)}:${index + 1}`, text })),
);
const code = lines.filter(({ text }) => !/^\s*(\/\/|\*|\/\*)/.test(text));

describe("the one writer", () => {
  it("is the only place that opens a transaction", () => {
    const owners = code.filter(({ text }) => /\.\$transaction\(/.test(text)).map(({ where }) => where);
    expect(owners.map((where) => where.replace(/:\d+$/, ""))).toEqual([path.join("content", "writer.ts")]);
  });

  it("is the only way to write: no create/update/delete on the app's client", () => {
    const direct = code.filter(({ text }) =>
      /\b(prisma|db|client)\.\w+\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\(|\bdelegate\(prisma\b[^)]*\)\.(create|update|updateMany|upsert|delete|deleteMany)\(|\b(prisma|db|client)\.\$executeRaw/.test(
        text,
      ),
    );
    expect(direct.map(({ where, text }) => `${where}: ${text.trim()}`)).toEqual([]);
  });

  it("keeps SQL that changes rows in src/content", () => {
    const sqlWrites = code.filter(({ text }) =>
      /\b(INSERT INTO|DELETE FROM|UPDATE\s+"?\w+"?\s+SET)\b/.test(text),
    );
    const outside = sqlWrites.filter(({ where }) => !where.startsWith(`content${path.sep}`));
    expect(outside.map(({ where }) => where)).toEqual([]);
  });
});
