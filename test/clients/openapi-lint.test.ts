// Issue #37 item 6: the /v1/openapi.json the running server serves passes Spectral (the repo's
// .spectral.json: spectral:oas, its recommended rules, as the CLI's default) and Redocly (the repo's redocly.yaml: recommended) with no
// error and no warning. Each rule the rulesets turn off says why there, and the document says it where
// a reader looks (redocly.yaml: no-ambiguous-paths). Both linters run from their pinned packages, offline.
import { readFile } from "node:fs/promises";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Document, type RulesetDefinition, Spectral } from "@stoplight/spectral-core";
import * as Parsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const REPO = new URL("../../", import.meta.url);

let app: TestApp;
let served: string;
beforeAll(async () => {
  app = await startTestApp();
  const response = await fetch(`${app.url}/v1/openapi.json`);
  expect(response.status).toBe(200);
  served = await response.text();
});
afterAll(() => app?.close());

/** .spectral.json as Spectral's CLI reads it, with its one built-in ruleset resolved to the package's. */
async function spectralRuleset(): Promise<RulesetDefinition> {
  const file = JSON.parse(await readFile(new URL(".spectral.json", REPO), "utf8")) as {
    extends: [string, "all" | "recommended" | "off"][];
    rules?: Record<string, unknown>;
  };
  const extendsList = file.extends.map(([name, mode]) => {
    expect(name).toBe("spectral:oas");
    return [oas, mode] as const;
  });
  return { extends: extendsList, rules: file.rules ?? {} } as unknown as RulesetDefinition;
}

describe("the served OpenAPI document", () => {
  it("has no Spectral error or warning (spectral:oas)", async () => {
    const spectral = new Spectral();
    spectral.setRuleset(await spectralRuleset());
    const results = await spectral.run(new Document(served, Parsers.Json, "openapi.json"));
    expect(results.map((result) => `${result.code} at ${result.path.join(".")}: ${result.message}`)).toEqual(
      [],
    );
  });

  it("has no Redocly error or warning (recommended, as redocly.yaml sets it)", async () => {
    const config = await createConfig(await readFile(new URL("redocly.yaml", REPO), "utf8"));
    const problems = await lintFromString({ source: served, absoluteRef: "/v1/openapi.json", config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`)).toEqual(
      [],
    );
  });

  it("declares every tag its operations use, describes every operation and names a contact", () => {
    const document = JSON.parse(served);
    const declared = new Set(document.tags.map((tag: { name: string }) => tag.name));
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item as object));
    expect(operations.length).toBeGreaterThan(40);
    for (const operation of operations) {
      expect(operation.description, operation.operationId).toEqual(expect.stringMatching(/\S/));
      for (const tag of operation.tags) expect(declared, `${operation.operationId}: ${tag}`).toContain(tag);
    }
    expect(document.info.contact).toEqual({ name: expect.any(String) });
  });
});
