// Prepared statement names: one per statement text, and none for texts that vary with the data.
import { describe, expect, it } from "vitest";
import { statementName } from "../../src/db/statement-names.ts";

const inList = (n: number) =>
  `SELECT id FROM "Post" WHERE id IN (${Array.from({ length: n }, (_, i) => `$${i + 1}`).join(", ")})`;

describe("statementName", () => {
  it("names a statement after its text: the same text, the same name; another text, another name", () => {
    const name = statementName('SELECT 1 FROM "Post" WHERE id = $1');
    expect(name).toMatch(/^s_[0-9a-f]{24}$/);
    expect(statementName('SELECT 1 FROM "Post" WHERE id = $1')).toBe(name);
    expect(statementName('SELECT 2 FROM "Post" WHERE id = $1')).not.toBe(name);
  });

  it("leaves statements with long parameter lists unnamed, so they are not kept prepared", () => {
    expect(statementName(inList(32))).toMatch(/^s_/);
    expect(statementName(inList(33))).toBeUndefined();
    expect(statementName(inList(1000))).toBeUndefined();
  });

  it("counts a parameter used twice once", () => {
    const twice = `SELECT (SELECT count(*) FROM "Post" WHERE ${inList(20).split("WHERE ")[1]}) AS a, ${Array.from({ length: 20 }, (_, i) => `$${i + 1}`).join(" + ")} AS b`;
    expect(statementName(twice)).toMatch(/^s_/);
  });
});
