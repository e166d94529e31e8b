// The GraphQL documents the benchmarks send (bench/scenarios.ts) are valid against the schema: a bench
// whose document the service refuses measures 400s, not reads (a variable the shared post fragment
// stopped using once made every GraphQL list in `npm run bench -- --keys` a validation error).
import { parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { GRAPHQL_LIST_QUERY, GRAPHQL_SHORT_LIST_QUERY } from "../../bench/scenarios.ts";
import { schema } from "../../src/graphql/executable-schema.ts";

describe("the benchmarks' GraphQL documents", () => {
  it.each([
    ["the REST list's selection", GRAPHQL_LIST_QUERY],
    ["the short list", GRAPHQL_SHORT_LIST_QUERY],
  ])("%s validates against the schema", (_name, document) => {
    expect(validate(schema, parse(document)).map((error) => error.message)).toEqual([]);
  });
});
