// The GraphQL answer store holds nothing the door may not send (GRAPHQL_MAX_RESPONSE_BYTES): an answer
// over the limit is never kept, and one kept over it in the shared store (by an instance with a higher
// limit) is never served — a cached answer never skips the limit.
import { describe, expect, it } from "vitest";
import { createGraphQLAnswers, type GraphQLAnswer } from "../../src/cache/graphql-answers.ts";
import { packAnswer, type SharedAnswers } from "../../src/cache/shared-answers.ts";

function answerOf(text: string): GraphQLAnswer {
  return {
    data: JSON.parse(text).data,
    text,
    bytes: Buffer.byteLength(text),
    etag: '"e"',
    workspaceId: "w",
    head: "1",
    dependencies: [],
  };
}

function memoryShared(): SharedAnswers & { values: Map<string, Buffer> } {
  const values = new Map<string, Buffer>();
  return {
    values,
    get: async (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    close: async () => {},
  };
}

const small = JSON.stringify({ data: { s: "x" } });
const large = JSON.stringify({ data: { s: "x".repeat(200) } });

describe("GraphQL answers and the response size limit", () => {
  it("never stores an answer over the limit, in memory or in the shared store", async () => {
    const shared = memoryShared();
    const answers = createGraphQLAnswers({ maxBytes: 1e6, maxAnswerBytes: 100, ttlMs: 60_000, shared });
    answers.set("large", answerOf(large));
    answers.set("small", answerOf(small));
    expect(await answers.lookup("large", "1")).toBeUndefined();
    expect(answers.peek("large", "1")).toBeUndefined();
    expect([...shared.values.keys()]).toEqual(["graphql:small"]);
    expect((await answers.lookup("small", "1"))?.text).toBe(small);
  });

  it("never serves an answer another instance stored over this instance's limit", async () => {
    const shared = memoryShared();
    const lenient = createGraphQLAnswers({ maxBytes: 1e6, maxAnswerBytes: 1e6, ttlMs: 60_000, shared });
    lenient.set("large", answerOf(large));
    expect(shared.values.has("graphql:large")).toBe(true);
    const strict = createGraphQLAnswers({ maxBytes: 1e6, maxAnswerBytes: 100, ttlMs: 60_000, shared });
    expect(await strict.lookup("large", "1")).toBeUndefined();
    expect(shared.values.get("graphql:large")).toEqual(
      packAnswer({ workspaceId: "w", head: "1", dependencies: "" }, Buffer.from(large)),
    );
  });
});
