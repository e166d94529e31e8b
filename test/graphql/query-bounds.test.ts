// One key must not be able to stall the service through /graphql: every document is bounded before it
// runs (tokens, aliases, directives, depth, the cost of introspection), every answer's size is capped,
// and the body is held to the service's body limit — each refusal a QUERY_TOO_COMPLEX (400) or another
// GraphQL error body, never a 500 and never a slow 200.
import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENT_BOUNDS } from "../../src/graphql/builder.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
const METRICS_TOKEN = "query-bounds-metrics-token";

beforeAll(async () => {
  app = await startTestApp({ env: { GRAPHQL_MAX_RESPONSE_BYTES: "200000", METRICS_TOKEN: METRICS_TOKEN } });
  ws = await app.workspace("Bounds");
  const f = graphqlFixtures(graphqlClient(app, ws.privateKey));
  const category = await f.category("news");
  for (const slug of ["one", "two", "three"])
    await f.post({ slug, categoryId: category.id, content: `<p>${"x".repeat(80_000)}</p>` });
});
afterAll(async () => app?.close());

async function post(query: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: ws.publicKey, ...headers },
    body: JSON.stringify({ query }),
  });
  const body = await response.json();
  return { status: response.status, body, ms: performance.now() - started, headers: response.headers };
}

/** The GraphQL door's cache size on this instance, from /metrics. */
async function graphqlCacheBytes(): Promise<number> {
  const res = await app.request("GET", "/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = String(res.body)
    .split("\n")
    .find((l) => l.startsWith('response_cache_bytes{door="graphql"}'));
  return Number(line?.split(" ")[1]);
}

const SCHEMA_WALK = "__schema { types { name fields { name args { name } type { name } } } }";
const aliased = (count: number, selection: string) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(" ")} }`;

function expectRefused(res: { status: number; body: any }, measure: string) {
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors[0].extensions).toMatchObject({ code: "QUERY_TOO_COMPLEX", measure });
}

describe("document bounds", () => {
  it("refuses 3,000 aliases of a schema walk at once, without running any of it", async () => {
    const res = await post(aliased(3_000, SCHEMA_WALK));
    expectRefused(res, "tokens");
    expect(res.body.errors[0].message).toBe(
      `Query tokens exceeds the limit of ${DOCUMENT_BOUNDS.maxTokens}; ask for less in one request`,
    );
  });

  it("refuses more aliases than the limit even in a short document", async () => {
    const res = await post(aliased(DOCUMENT_BOUNDS.maxAliases + 1, "tags { items { name } }"));
    expectRefused(res, "aliases");
    expect(res.body.errors[0].extensions.actual).toBe(DOCUMENT_BOUNDS.maxAliases + 1);
  });

  it("allows aliases up to the limit", async () => {
    const res = await post(aliased(DOCUMENT_BOUNDS.maxAliases, "categories { items { name } }"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toHaveLength(DOCUMENT_BOUNDS.maxAliases);
  });

  it("refuses more directives than the limit", async () => {
    const res = await post(`{ tags { items { name ${"@include(if: true) ".repeat(60)} } } }`);
    expectRefused(res, "directives");
  });

  it("refuses nesting hundreds of levels deep with a 400, not a stack overflow", async () => {
    for (const levels of [300, 1_500]) {
      const query = `{ posts { items { ${"authors { ".repeat(levels)}name${" }".repeat(levels)} } } }`;
      const res = await post(query);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe("QUERY_TOO_COMPLEX");
    }
  });

  it("counts depth before execution, for clients that accept only application/json too", async () => {
    const deep = `{ posts { items { ${"authors { ".repeat(10)}name${" }".repeat(10)} } } }`;
    const res = await post(deep, { accept: "application/json" });
    expectRefused(res, "depth");
  });
});

describe("introspection is priced by the size of its answer", () => {
  it("answers GraphiQL's introspection query", async () => {
    const res = await post(getIntrospectionQuery());
    expect(res.status, JSON.stringify(res.body).slice(0, 600)).toBe(200);
    expect(res.body.data.__schema.types.length).toBeGreaterThan(20);
  });

  it("answers __type with its name in a variable (graphql-http's audit: the price reads no variables)", async () => {
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: {
        authorization: ws.publicKey,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({
        query: "query T($name: String!) { __type(name: $name) { name fields { name } } }",
        variables: { name: "Post" },
      }),
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.data.__type.name).toBe("Post");
    expect(body.errors).toBeUndefined();
  });

  it("refuses the whole schema walked twenty times (within the alias limit)", async () => {
    const res = await post(aliased(20, SCHEMA_WALK));
    expectRefused(res, "introspection");
    expect(res.body.errors[0].extensions.max).toBe(5_000);
  });

  it("counts copies multiplied through nested aliases", async () => {
    const level = (inner: string) => ["x", "y", "z"].map((alias) => `${alias}: ${inner}`).join(" ");
    const typeRef = "type { ofType { ofType { name } } }";
    const query = `{ __schema { ${level(`types { ${level(`fields { ${level(typeRef)} }`)} }`)} } }`;
    const res = await post(query);
    expect(res.status).toBe(400);
    const measures = res.body.errors.map(
      (error: { extensions: { measure?: string } }) => error.extensions.measure,
    );
    expect(measures).toContain("introspection");
  });

  it("lets a small introspection through with the schema's own fields", async () => {
    const res = await post('{ __type(name: "Post") { name fields { name } } posts { items { title } } }');
    expect(res.status).toBe(200);
    expect(res.body.data.__type.name).toBe("Post");
  });
});

describe("the size of an answer", () => {
  it("is capped (GRAPHQL_MAX_RESPONSE_BYTES): a larger answer is refused, not sent", async () => {
    const res = await post("{ posts { items { title content } } }");
    expectRefused(res, "response bytes");
    expect(res.body.errors[0].message).toContain("the limit of 200000");
  });

  it("holds for the response cache: an answer over the cap is never stored, so a repeat is refused too", async () => {
    const before = await graphqlCacheBytes();
    // Each alias is another cache key: none of them may fill the cache.
    for (const query of ["{ posts { items { title content } } }", "{ again: posts { items { content } } }"]) {
      const first = await post(query);
      expectRefused(first, "response bytes");
      const second = await post(query);
      expectRefused(second, "response bytes");
      expect(second.headers.get("x-cache")).toBeNull();
    }
    expect(await graphqlCacheBytes()).toBe(before);
  });

  it("lets answers under the cap through", async () => {
    const res = await post("{ posts { items { title } } }");
    expect(res.status).toBe(200);
    expect(res.body.data.posts.items).toHaveLength(3);
  });

  it("holds for REST too, which runs GraphQL: 400 with the contract's body", async () => {
    const res = await app.request("GET", "/v1/posts", { key: ws.publicKey });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Query too complex",
      message: expect.stringContaining("response bytes"),
    });
  });
});
