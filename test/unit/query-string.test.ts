// The query parser (src/http/query-string.ts) answers exactly what qs answers with Express's extended
// options, for any query string: its shortcut for flat pairs must never show.
import { inspect, isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import qs from "qs";
import { describe, expect, it } from "vitest";
import { parseQueryString } from "../../src/http/query-string.ts";

const expected = (text: string) => qs.parse(text, { allowPrototypes: true });

/**
 * Same own keys, values and prototypes (node's deep strict equality: vitest's toStrictEqual compares
 * `.constructor`, which a query can set as a key of its own).
 */
function expectSameAsQs(text: string): void {
  const actual = parseQueryString(text);
  const wanted = expected(text);
  expect(
    isDeepStrictEqual(actual, wanted),
    `${JSON.stringify(text)}: ${inspect(actual)} vs ${inspect(wanted)}`,
  ).toBe(true);
}

/** Pieces query strings are made of, tricky ones included. */
const piece = fc.constantFrom(
  "a",
  "limit",
  "tags",
  "q",
  "=",
  "&",
  "+",
  "%20",
  "%2B",
  "%26",
  "%3D",
  "%",
  "%E2%9C%93",
  "%C3",
  "%zz",
  ".",
  "[",
  "]",
  "[]",
  "%5B",
  "%5d",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "é",
  " ",
  "1",
);
const queryString = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(""));

describe("parseQueryString", () => {
  it("answers what qs answers for generated query strings", () => {
    fc.assert(
      fc.property(queryString, (text) => {
        expectSameAsQs(text);
      }),
      { numRuns: 5_000 },
    );
  });

  it("answers what qs answers for strings of any characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => {
        expectSameAsQs(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it("reads a URL without a query (null from Express) as no parameters", () => {
    expect(parseQueryString(null)).toEqual({});
    expect(parseQueryString(undefined)).toEqual({});
    expect(parseQueryString("")).toEqual({});
  });

  it("reads the service's own query strings as qs does", () => {
    for (const text of [
      "limit=10",
      "limit=10&page=2&order=asc",
      "categories=news,tech&tags=a,b&excludeTags=c",
      "query=hello+world&format=markdown",
      "query=caf%C3%A9",
      "tags[]=x",
      "tags=a&tags=b",
      "preview",
      "limit=1&limit=2&limit=3",
      `${"a=1&".repeat(1_001)}b=2`,
    ])
      expectSameAsQs(text);
  });
});
