// Which GraphQL documents read through a preview token: their answers may be kept by no cache
// (src/graphql/use-preview-no-store.ts). The answer is kept per parsed document, so it must be the
// document's own and stay the same however often, and whichever document is asked first.
import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { readsPreview } from "../../src/graphql/plugins/use-preview-no-store.ts";

const WITH_TOKEN = parse('{ post(identifier: "a", preview: "tok") { title } }');
const WITH_VARIABLE = parse('query P($token: String) { post(identifier: "a", preview: $token) { title } }');
const IN_FRAGMENT = parse(
  'query { ...Reads } fragment Reads on Query { post(identifier: "a", preview: null) { title } }',
);
const WITHOUT = parse('{ posts(limit: 5) { items { title } } post(identifier: "a") { title } }');
const FIELD_NAMED_PREVIEW = parse("{ posts { items { preview: title } } }");

describe("readsPreview", () => {
  it("finds a preview argument anywhere: a token, a variable, null, inside a fragment", () => {
    expect(readsPreview(WITH_TOKEN)).toBe(true);
    expect(readsPreview(WITH_VARIABLE)).toBe(true);
    expect(readsPreview(IN_FRAGMENT)).toBe(true);
  });

  it("is false without one, also when an alias is called preview", () => {
    expect(readsPreview(WITHOUT)).toBe(false);
    expect(readsPreview(FIELD_NAMED_PREVIEW)).toBe(false);
  });

  it("answers each document the same every time, in any order (kept per document)", () => {
    const documents = [WITHOUT, WITH_TOKEN, FIELD_NAMED_PREVIEW, WITH_VARIABLE, IN_FRAGMENT];
    const first = documents.map(readsPreview);
    for (let round = 0; round < 3; round++)
      expect([...documents].reverse().map(readsPreview).reverse()).toEqual(first);
    expect(first).toEqual([false, true, false, true, true]);
  });

  it("tells apart two documents of the same text only by their own content (a new parse)", () => {
    const again = parse('{ post(identifier: "a", preview: "tok") { title } }');
    expect(readsPreview(again)).toBe(true);
    expect(readsPreview(parse('{ post(identifier: "a") { title } }'))).toBe(false);
  });
});
