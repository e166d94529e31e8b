// docs/api-keys.md's scope table is the code's: every scope, with the words the CLI's help and the
// schema show, and no other.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN } from "../../src/auth/api-key-format.ts";
import { SCOPES } from "../../src/auth/scopes.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../docs/api-keys.md"), "utf8");

describe("docs/api-keys.md", () => {
  it("has one row per scope, saying what src/auth/scopes.ts says", () => {
    const rows = [...page.matchAll(/^\| `([a-z]+(?::[a-z]+)?)` \| (.+) \|$/gm)].map((row) => [
      row[1],
      row[2],
    ]);
    expect(Object.fromEntries(rows)).toEqual(SCOPES);
  });

  it("documents the key format's regular expression", () => {
    expect(page).toContain(`\n${API_KEY_PATTERN.source}\n`);
  });
});
