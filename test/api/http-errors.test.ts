// The HTTP rules every /v1 route shares: keys (401/403), unknown routes and methods, malformed and
// oversized bodies, CORS, and that a client mistake is never a 500. Workspace isolation and the
// `/v1/{workspace_id}/…` path form are in workspaces.test.ts.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { type RestRoute, routeScopes } from "../../src/rest/route.ts";
import { restRoutes } from "../../src/rest/routes/index.ts";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const ADMIN_TOKEN = "admin-token-for-http-error-tests";
const BODY_LIMIT_BYTES = 4096;

let app: TestApp;
let ws: TestWorkspace;
let categoryId: string;

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN, BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) } });
  ws = await app.workspace();
  const f = restFixtures(app, ws.privateKey);
  categoryId = (await f.category("news")).id;
  await f.post({ slug: "hello", categoryId });
});
afterAll(async () => app?.close());

const validPost = (slug: string) => ({
  title: "T",
  content: "<p>c</p>",
  description: "d",
  slug,
  categoryId,
  status: "published",
});

/** A concrete path for an OpenAPI path template, e.g. `/v1/posts/{identifier}` → `/v1/posts/hello`. */
const concrete = (template: string, value = "hello") => template.replace(/\{\w+\}/g, value);

describe("API keys (401)", () => {
  const unauthorized = { error: "Unauthorized", message: expect.any(String) };

  it("a keyed route without a key is a 401", async () => {
    const res = await app.request("GET", "/v1/posts");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
    expect(res.body.message).toMatch(/Authorization/);
    expectMatchesOpenApi(res, "get", "/v1/posts");
  });

  it.each([
    ["an unknown key of the right form", "sk_thisKeyWasNeverIssuedByAnyWorkspace00"],
    ["something that is not a key", "hello"],
    ["an empty bearer", "Bearer "],
  ])("%s is a 401", async (_label, header) => {
    const res = await app.request("GET", "/v1/posts", { headers: { authorization: header } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
    expectMatchesOpenApi(res, "get", "/v1/posts");
  });

  it("a revoked key is a 401", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const issued = await app.request("POST", `/admin/workspaces/${ws.id}/keys`, {
      headers: admin,
      body: { kind: "public" },
    });
    expect(issued.status).toBe(201);
    expect((await app.request("GET", "/v1/posts", { key: issued.body.key })).status).toBe(200);
    expect(
      (await app.request("POST", `/admin/keys/${issued.body.apiKey.id}/revoke`, { headers: admin })).status,
    ).toBe(200);
    const res = await app.request("GET", "/v1/posts", { key: issued.body.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
    expect(res.body.message).toMatch(/revoked|invalid/i);
  });

  it("accepts the key bare and as `Bearer <key>`", async () => {
    for (const authorization of [ws.publicKey, `Bearer ${ws.publicKey}`, `bearer ${ws.publicKey}`]) {
      const res = await app.request("GET", "/v1/posts/hello", { headers: { authorization } });
      expect(res.status).toBe(200);
      expectMatchesOpenApi(res, "get", "/v1/posts/{identifier}");
      expect(res.body.post.slug).toBe("hello");
    }
  });
});

describe("public keys cannot write (403)", () => {
  const writes = restRoutes(loadConfig({ LOG_LEVEL: "silent" })).filter((route) =>
    routeScopes(route).some((scope) => scope.endsWith(":write")),
  );

  it("the route table has writes for every resource", () => {
    expect(writes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort()).toEqual(
      [
        "DELETE /authors/{identifier}",
        "DELETE /categories/{identifier}",
        "DELETE /fields/{identifier}",
        "DELETE /locales/{code}",
        "DELETE /media/{id}",
        "DELETE /posts/{identifier}",
        "DELETE /tags/{identifier}",
        "PATCH /authors/{identifier}",
        "PATCH /categories/{identifier}",
        "PATCH /fields/{identifier}",
        "PATCH /locales/{code}",
        "PATCH /media/{id}",
        "PATCH /posts/{identifier}",
        "PATCH /tags/{identifier}",
        "POST /authors",
        "POST /categories",
        "POST /fields",
        "POST /locales",
        "POST /media/upload",
        "POST /posts",
        "POST /posts/{identifier}/revisions/{number}/restore",
        "POST /tags",
      ].sort(),
    );
  });

  it.each(writes.map((route) => [route.method.toUpperCase(), route.path] as const))(
    "%s %s with a public key",
    async (method, path) => {
      const res = await app.request(method, `/v1${concrete(path)}`, {
        key: ws.publicKey,
        body: { name: "x", slug: "x" },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "Forbidden",
        message: expect.stringMatching(/writes need a private/i),
        requiredScope: routeScopes(
          writes.find((route) => route.path === path && route.method === method.toLowerCase()) as RestRoute,
        ).find((scope) => scope.endsWith(":write")),
      });
      expectMatchesOpenApi(res, method, `/v1${path}`);
    },
  );

  it("changes nothing", async () => {
    await app.request("PATCH", "/v1/posts/hello", { key: ws.publicKey, body: { title: "Changed" } });
    await app.request("DELETE", "/v1/posts/hello", { key: ws.publicKey });
    const res = await app.request("GET", "/v1/posts/hello", { key: ws.publicKey });
    expect(res.body.post.title).toBe("Hello");
  });
});

describe("unknown routes (404) and wrong methods (405)", () => {
  it.each(["/v1/nothing", "/nothing", "/v1/posts/hello/comments", "/v2/posts"])(
    "GET %s → 404 JSON",
    async (path) => {
      const res = await app.request("GET", path, { key: ws.publicKey });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: expect.any(String), message: expect.any(String) });
    },
  );

  it.each([
    ["PUT", "/v1/posts", "GET, POST"],
    ["DELETE", "/v1/posts", "GET, POST"],
    ["POST", "/v1/posts/hello", "GET, PATCH, DELETE"],
    ["PUT", "/v1/categories/news", "GET, PATCH, DELETE"],
    ["POST", "/v1/openapi.json", "GET"],
  ])("%s %s → 405 JSON, Allow: %s", async (method, path, allow) => {
    const res = await app.request(method, path, { key: ws.privateKey, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.body).toEqual({ error: "Method not allowed", message: expect.stringContaining(method) });
  });

  it("the workspace path form is read-only: other methods are a 405", async () => {
    const res = await app.request("POST", `/v1/${ws.id}/posts`, {
      key: ws.privateKey,
      body: validPost("via-path"),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("request bodies", () => {
  it("malformed JSON is a 400", async () => {
    const res = await app.request("POST", "/v1/posts", { key: ws.privateKey, body: '{"title": "x",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), message: expect.stringMatching(/JSON/) });
    expectMatchesOpenApi(res, "post", "/v1/posts");
  });

  it("a body over BODY_LIMIT_BYTES is a 413", async () => {
    const res = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: { ...validPost("huge"), content: `<p>${"x".repeat(BODY_LIMIT_BYTES)}</p>` },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "Payload too large", message: expect.any(String) });
    expectMatchesOpenApi(res, "post", "/v1/posts");
    expect((await app.request("GET", "/v1/posts/huge", { key: ws.privateKey })).status).toBe(404);
  });

  it("a route that takes no body does not read one: a DELETE with a malformed or oversized body is done", async () => {
    const f = restFixtures(app, ws.privateKey);
    const bodies = {
      "bodyless-malformed": '{"oops":',
      "bodyless-oversized": JSON.stringify({ padding: "x".repeat(BODY_LIMIT_BYTES * 2) }),
    };
    for (const [slug, body] of Object.entries(bodies)) {
      await f.post({ slug, categoryId });
      const res = await app.request("DELETE", `/v1/posts/${slug}`, { key: ws.privateKey, body });
      expect(res.status).toBe(200);
      expect((await app.request("GET", `/v1/posts/${slug}`, { key: ws.privateKey })).status).toBe(404);
    }
  });

  it("a body that is not JSON is refused as an invalid body", async () => {
    const res = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: "title=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(400);
    expectMatchesOpenApi(res, "post", "/v1/posts");
  });
});

describe("CORS", () => {
  const origin = "https://blog.example";

  it("a GET from a browser origin is allowed", async () => {
    const res = await app.request("GET", "/v1/posts", { key: ws.publicKey, headers: { origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toMatch(/X-RateLimit-Remaining/);
  });

  it("an OPTIONS preflight allows Authorization and Content-Type, without a key", async () => {
    const res = await app.request("OPTIONS", "/v1/posts/hello", {
      headers: {
        origin,
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const allowedHeaders = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    expect(allowedHeaders).toContain("authorization");
    expect(allowedHeaders).toContain("content-type");
    expect(res.headers.get("access-control-allow-methods")).toMatch(/GET.*PATCH/);
  });

  it("errors carry the CORS headers too, so browsers can read them", async () => {
    const res = await app.request("GET", "/v1/posts", { headers: { origin } });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("client mistakes are never a 500", () => {
  type Mistake = [
    method: string,
    path: string,
    status: number,
    options: { key?: "public" | "private" | "bad"; body?: unknown; headers?: Record<string, string> },
  ];
  const mistakes: Mistake[] = [
    ["GET", "/v1/posts?limit=abc&page=-1&order=x&status=x&format=x&featured=x", 400, { key: "public" }],
    ["GET", "/v1/posts?categories[a]=b&tags[]=x&query[]=y", 400, { key: "public" }],
    ["GET", "/v1/posts?limit=1&limit=2", 400, { key: "public" }],
    ["GET", `/v1/posts?query=${"long".repeat(200)}`, 400, { key: "public" }],
    ["GET", "/v1/posts/%E0%A4%A", 400, { key: "public" }],
    ["GET", "/v1/posts?page=99999999999999999999", 400, { key: "public" }],
    ["GET", "/v1/posts?limit=99999999999999999999", 400, { key: "public" }],
    ["GET", "/v1/categories/news?include=everything", 400, { key: "public" }],
    ["POST", "/v1/posts", 400, { key: "private", body: "null" }],
    [
      "POST",
      "/v1/posts",
      400,
      { key: "private", body: { ...validPost("x"), publishedAt: "2024-13-45T99:99:99Z" } },
    ],
    ["POST", "/v1/posts", 400, { key: "private", body: { ...validPost("x"), tags: [null], authors: [{}] } }],
    ["POST", "/v1/posts", 400, { key: "private", body: { ...validPost("x"), fields: "not an object" } }],
    [
      "POST",
      "/v1/posts",
      400,
      { key: "private", body: { ...validPost("x"), content: "<script>only a script</script>" } },
    ],
    ["POST", "/v1/posts", 400, { key: "private", body: { ...validPost("x"), slug: "Not A Slug!" } }],
    [
      "POST",
      "/v1/posts",
      415,
      { key: "private", body: "{}", headers: { "content-type": "application/json; charset=latin-9" } },
    ],
    ["PATCH", "/v1/posts/hello", 400, { key: "private", body: { title: null, status: null } }],
    ["PATCH", "/v1/posts/hello", 400, { key: "private", body: { publishedAt: "soon" } }],
    [
      "POST",
      "/v1/media/upload",
      400,
      { key: "private", body: "not multipart", headers: { "content-type": "multipart/form-data" } },
    ],
    ["POST", "/v1/categories", 400, { key: "private", body: { name: "x".repeat(1000), slug: "x" } }],
    ["DELETE", "/v1/posts/hello?status=all", 401, { key: "bad" }],
  ];

  it.each(mistakes)("%s %s → %d", async (method, path, status, options) => {
    const key = { public: ws.publicKey, private: ws.privateKey, bad: "sk_nope", none: undefined }[
      options.key ?? "none"
    ];
    const res = await app.request(method, path, { key, body: options.body, headers: options.headers });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual(
      expect.objectContaining({ error: expect.any(String), message: expect.any(String) }),
    );
    expectMatchesOpenApi(res, method, path);
  });

  it("a search with operators and unbalanced quotes is just a search", async () => {
    const res = await app.request("GET", "/v1/posts?query=%22unterminated%20%26%20(or%20!%20-", {
      key: ws.publicKey,
    });
    expect(res.status).toBe(200);
    expectMatchesOpenApi(res, "get", "/v1/posts");
  });
});
