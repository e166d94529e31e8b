// No single request may hold the database: a search text is bounded before it reaches SQL
// (SEARCH_MAX_LENGTH characters, SEARCH_MAX_TERMS words; 400 with the contract's validation body past
// them), and every statement has a deadline (DATABASE_STATEMENT_TIMEOUT_MS) past which the request
// answers 503 with Retry-After in the contract's shape, never a 500.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { storageMode } from "../helpers/test-database.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Search limits");
  const fixtures = restFixtures(app, ws.privateKey);
  const category = await fixtures.category("news");
  await fixtures.post({
    slug: "harbour-lights",
    title: "Harbour lights",
    categoryId: category.id,
    status: "published",
  });
});
afterAll(() => app?.close());

/** `count` short words, as the hostile client sent them. */
const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i % 1000}`).join(" ");

describe("search text bounds", () => {
  it("REST: a search within the bounds answers 200; past either bound 400 naming `query`", async () => {
    const fine = await app.request("GET", `/v1/posts?query=${encodeURIComponent(`harbour ${words(31)}`)}`, {
      key: ws.publicKey,
    });
    expect(fine.status).toBe(200);

    const tooManyWords = await app.request("GET", `/v1/posts?query=${encodeURIComponent(words(2_000))}`, {
      key: ws.publicKey,
    });
    expect(tooManyWords.status).toBe(400);
    expect(tooManyWords.body).toEqual({
      error: "Validation failed",
      message: "Invalid query parameters",
      details: [{ field: "query", message: "Must be at most 500 characters" }],
    });

    const tooLong = await app.request("GET", `/v1/posts?query=${"x".repeat(501)}`, { key: ws.publicKey });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details).toEqual([{ field: "query", message: "Must be at most 500 characters" }]);

    const manyShortWords = await app.request("GET", `/v1/posts?query=${encodeURIComponent(words(33))}`, {
      key: ws.publicKey,
    });
    expect(manyShortWords.status).toBe(400);
    expect(manyShortWords.body).toEqual({
      error: "Validation failed",
      message: "The search text is too long",
      details: [{ field: "query", message: "Must hold at most 32 words" }],
    });
  });

  it("GraphQL: 150,000 terms (a body under the 1 MB limit) are refused at once with BAD_USER_INPUT, on both list fields", async () => {
    for (const field of ["posts(query: $q) { items { id } }", "postsConnection(query: $q) { totalCount }"]) {
      const started = performance.now();
      const res = await fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: ws.publicKey, "content-type": "application/json" },
        body: JSON.stringify({ query: `query Q($q: String) { ${field} }`, variables: { q: words(150_000) } }),
      });
      const elapsed = performance.now() - started;
      const body = await res.json();
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(400);
      expect(body.errors[0].extensions).toMatchObject({ code: "BAD_USER_INPUT" });
      expect(body.errors[0].extensions.details).toEqual([
        { field: "query", message: "Must be at most 500 characters" },
      ]);
      expect(elapsed).toBeLessThan(2_000);
    }
  });
});

describe.runIf(storageMode === "postgres")("the statement deadline", () => {
  it("a read held past DATABASE_STATEMENT_TIMEOUT_MS answers 503 with Retry-After (REST and GraphQL), and the next one works", async () => {
    // The two 503s are this test's point.
    expectServerErrors();
    const quick = await startTestApp({ env: { DATABASE_STATEMENT_TIMEOUT_MS: "300", CACHE: "off" } });
    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    try {
      const w = await quick.workspace("Deadline");
      const schema = (await quick.db.sql.query<{ schema: string }>("SELECT current_schema() AS schema"))[0]
        ?.schema;
      // Another session holds the posts table: every read of it waits, as behind a runaway statement.
      await blocker.query("BEGIN");
      await blocker.query(`LOCK TABLE "${schema}"."Post" IN ACCESS EXCLUSIVE MODE`);

      let started = performance.now();
      const rest = await quick.request("GET", "/v1/posts", { key: w.publicKey });
      const restMs = performance.now() - started;
      expect(rest.status, JSON.stringify(rest.body)).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("1");
      expect(rest.body).toEqual({
        error: "Service unavailable",
        message: expect.stringMatching(/longer than the database allows/),
      });

      started = performance.now();
      const gql = await fetch(`${quick.url}/graphql`, {
        method: "POST",
        headers: { authorization: w.publicKey, "content-type": "application/json" },
        body: JSON.stringify({ query: "{ posts { items { id } } }" }),
      });
      const gqlMs = performance.now() - started;
      expect(gql.status).toBe(503);
      expect(gql.headers.get("retry-after")).toBe("1");
      expect((await gql.json()).errors[0].extensions.code).toBe("TIMEOUT");
      console.log(
        `deadline 300 ms: REST answered 503 after ${Math.round(restMs)} ms, GraphQL after ${Math.round(gqlMs)} ms`,
      );
      expect(Math.max(restMs, gqlMs)).toBeLessThan(2_000);

      await blocker.query("ROLLBACK");
      expect((await quick.request("GET", "/v1/posts", { key: w.publicKey })).status).toBe(200);
    } finally {
      await blocker.end();
      await quick.close();
    }
  });
});
