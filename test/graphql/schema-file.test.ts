// schema.graphql is committed so tooling can read the API without a running server; it must be the
// schema the code builds. When this fails, run `npx tsx scripts/print-schema.ts` and commit the result.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printSchemaFile } from "../../src/graphql/print-schema.ts";

describe("schema.graphql", () => {
  it("equals the schema printed from the Pothos schema", () => {
    const committed = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");
    expect(committed, "schema.graphql is stale: run `npx tsx scripts/print-schema.ts`").toBe(
      printSchemaFile(),
    );
  });
});
