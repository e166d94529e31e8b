// Tooling reads the schema without a key: a document that asks for nothing but introspection runs
// keyless (GRAPHQL_INTROSPECTION=public, the default), held to the per-address rate limit and the usual
// bounds; anything else still needs a key. `key` requires one for introspection too; `off` refuses
// introspection to everyone.
import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));
async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const app = await startTestApp({ env });
  apps.push(app);
  return app;
}

function post(app: TestApp, query: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query }),
  });
}

describe("GRAPHQL_INTROSPECTION=public (default)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await start();
  });

  it("answers GraphiQL's (and codegen's) introspection query without a key, over POST and GET", async () => {
    const res = await post(app, getIntrospectionQuery());
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.__schema.types.some((type: { name: string }) => type.name === "Post")).toBe(true);
    const get = await fetch(
      `${app.url}/graphql?query=${encodeURIComponent('{ __type(name: "Post") { name } }')}`,
      {
        headers: { accept: "application/json" },
      },
    );
    expect(get.status).toBe(200);
    expect((await get.json()).data).toEqual({ __type: { name: "Post" } });
  });

  it("follows fragments, and refuses anything that is not only introspection", async () => {
    const viaFragment = await post(
      app,
      "query { ...Types } fragment Types on Query { __schema { queryType { name } } }",
    );
    expect(viaFragment.status).toBe(200);
    for (const query of [
      "{ posts { items { id } } }",
      "{ __schema { queryType { name } } posts { items { id } } }",
      "{ ...Both } fragment Both on Query { __typename tags { items { id } } }",
      "mutation { __typename }",
      "not a document",
    ]) {
      const res = await post(app, query);
      expect(res.status, query).toBe(401);
      expect((await res.json()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    }
  });

  it("keeps the other bounds: a walk over the schema twenty times is refused without a key too", async () => {
    const walk = "__schema { types { name fields { name args { name } type { name } } } }";
    const res = await post(app, `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: ${walk}`).join(" ")} }`);
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].extensions.code).toBe("QUERY_TOO_COMPLEX");
  });

  it("an invalid key is still a 401, not a keyless introspection", async () => {
    const res = await post(app, "{ __typename }", { authorization: "pk_notAKeyOfAnyWorkspace000000000" });
    expect(res.status).toBe(401);
  });
});

describe("rate limited per address without a key", () => {
  it("past RATE_LIMIT_UNAUTHENTICATED a keyless introspection answers 429", async () => {
    const app = await start({ RATE_LIMIT_UNAUTHENTICATED: "3" });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(app, "{ __typename }")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe("GRAPHQL_INTROSPECTION=key and off", () => {
  it("key: a keyless introspection is a 401; with a key it runs", async () => {
    const app = await start({ GRAPHQL_INTROSPECTION: "key" });
    const ws = await app.workspace("Key needed");
    expect((await post(app, "{ __schema { queryType { name } } }")).status).toBe(401);
    const keyed = await post(app, "{ __schema { queryType { name } } }", { authorization: ws.publicKey });
    expect(keyed.status).toBe(200);
  });

  it("off: introspection is refused to keys too; other queries run", async () => {
    const app = await start({ GRAPHQL_INTROSPECTION: "off" });
    const ws = await app.workspace("No introspection");
    const refused = await post(app, "{ __schema { queryType { name } } }", { authorization: ws.privateKey });
    expect(refused.status).toBe(400);
    expect((await refused.json()).errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    const other = await post(app, "{ tags { items { id } } }", { authorization: ws.privateKey });
    expect(other.status).toBe(200);
  });
});
