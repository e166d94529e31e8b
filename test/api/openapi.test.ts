// GET /v1/openapi.json: a valid OpenAPI 3.1 document, generated from the route table (every route,
// nothing else), and true to the server: a tour calls every operation and checks each real response
// against the document.

import { Validator } from "@seriousme/openapi-schema-validator";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeScopes } from "../../src/rest/route.ts";
import { restRoutes } from "../../src/rest/routes/index.ts";
import {
  expectMatchesOpenApi,
  type OpenApiDocument,
  openApiChecker,
  openApiDocumentFor,
} from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let served: OpenApiDocument;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace();
  const res = await app.request("GET", "/v1/openapi.json");
  expect(res.status).toBe(200);
  served = res.body;
});
afterAll(async () => app?.close());

describe("GET /v1/openapi.json", () => {
  it("is served as JSON without a key", async () => {
    const res = await app.request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      openapi: "3.1.0",
      info: { title: expect.any(String), version: "1.0.0" },
    });
  });

  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is the document the test helper checks responses against", () => {
    expect(served).toEqual(openApiDocumentFor(app.config));
    expect(served.paths).toEqual(openApiChecker().document.paths);
    expect(served.components).toEqual(openApiChecker().document.components);
  });

  it("has exactly the operations of the route table, plus the workspace path form of the reads that offer it", () => {
    const routes = restRoutes(app.config);
    const expected = [
      ...routes.flatMap((route) => [
        `${route.method.toUpperCase()} /v1${route.path} ${route.name}`,
        ...(route.workspacePathForm ? [`GET /v1/{workspace_id}${route.path} ${route.name}ByWorkspace`] : []),
      ]),
      // The two routes that carry bytes (src/rest/transfer-routes.ts), outside the route table.
      "GET /v1/export exportWorkspace",
      "POST /v1/import importIntoWorkspace",
    ];
    const documented = Object.entries(
      served.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(documented.sort()).toEqual(expected.sort());
    expect(routes.length).toBeGreaterThanOrEqual(27);
  });

  it("declares each route's success status, query parameters and body", () => {
    for (const route of restRoutes(app.config)) {
      const op = served.paths[`/v1${route.path}`][route.method];
      expect(Object.keys(op.responses), route.name).toContain(String(route.status));
      const queryNames = op.parameters
        .filter((p: { in: string }) => p.in === "query")
        .map((p: { name: string }) => p.name);
      expect(queryNames, route.name).toEqual((route.query ?? []).map((q) => q.name));
      const pathNames = op.parameters
        .filter((p: { in: string }) => p.in === "path")
        .map((p: { name: string }) => p.name);
      expect(pathNames, route.name).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      expect(Boolean(op.requestBody), route.name).toBe(Boolean(route.body || route.multipart));
      for (const status of ["400", "401", "429", "500"])
        expect(Object.keys(op.responses), route.name).toContain(status);
      if (routeScopes(route).some((scope) => scope !== "content:read"))
        expect(Object.keys(op.responses), route.name).toContain("403");
      if (route.path.includes("{")) expect(Object.keys(op.responses), route.name).toContain("404");
    }
  });

  it("types a revision's number in the path as an integer (openapi-fetch passes numbers), other path parameters as strings", () => {
    const pathSchemas = (path: string) =>
      Object.fromEntries(
        served.paths[path].get.parameters
          .filter((p: { in: string }) => p.in === "path")
          .map((p: { name: string; schema: unknown }) => [p.name, p.schema]),
      );
    expect(pathSchemas("/v1/posts/{identifier}/revisions/{number}")).toEqual({
      identifier: { type: "string" },
      number: { type: "integer", minimum: 1 },
    });
    expect(pathSchemas("/v1/posts/{identifier}")).toEqual({ identifier: { type: "string" } });
  });

  it("documents the workspace path form as usable without a key", () => {
    expect(served.paths["/v1/{workspace_id}/posts"].get.security).toEqual([{}, { apiKey: [] }]);
    expect(served.security).toEqual([{ apiKey: [] }]);
    expect(served.components.securitySchemes.apiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
  });
});

describe("the response checker", () => {
  const json = new Headers({ "content-type": "application/json; charset=utf-8" });
  const pagination = {
    limit: 10,
    currentPage: 1,
    nextPage: null,
    previousPage: null,
    totalPages: 0,
    totalItems: 0,
  };
  const problems = (status: number, body: unknown, headers = json) =>
    openApiChecker().problems({ status, body, headers }, "get", "/v1/posts");

  it("accepts a matching body", () => {
    expect(problems(200, { posts: [], pagination })).toEqual([]);
    expect(
      problems(400, {
        error: "Invalid page number",
        details: { message: "m", totalPages: 1, requestedPage: 2 },
      }),
    ).toEqual([]);
  });

  it("finds the template serving a concrete path, as the router does", () => {
    const checker = openApiChecker();
    expect(checker.templateFor("/v1/posts/hello?format=markdown")).toBe("/v1/posts/{identifier}");
    expect(checker.templateFor("/v1/categories/posts")).toBe("/v1/categories/{identifier}");
    expect(checker.templateFor("/v1/media/upload")).toBe("/v1/media/upload");
    expect(checker.templateFor("/v1/ws_1/posts")).toBe("/v1/{workspace_id}/posts");
    expect(checker.templateFor("/v1/ws_1/tags/js")).toBe("/v1/{workspace_id}/tags/{identifier}");
    expect(() => checker.templateFor("/v1/nothing/here/at/all")).toThrow(/No path/);
  });

  it("reports missing and unexpected members, wrong types, undeclared statuses and content types", () => {
    expect(problems(200, { posts: [{ id: "x" }], pagination }).join("\n")).toMatch(
      /must have required property 'slug'/,
    );
    expect(problems(200, { posts: [], pagination, extra: 1 }).join("\n")).toMatch(
      /must NOT have additional properties/,
    );
    expect(problems(200, { posts: [], pagination: { ...pagination, limit: "10" } }).join("\n")).toMatch(
      /must be integer/,
    );
    expect(problems(418, {})).toEqual([expect.stringMatching(/status not declared/)]);
    expect(problems(200, { posts: [], pagination }, new Headers({ "content-type": "text/html" }))).toEqual([
      expect.stringMatching(/content-type/),
    ]);
  });
});

describe("every operation's real success response matches the document", () => {
  const visited = new Set<string>();

  /** Calls one operation, expects its documented success status and checks the body against the document. */
  async function visit(
    method: string,
    template: string,
    path: string,
    options: { key?: string | null; body?: unknown; status: number },
  ) {
    const key = options.key === null ? undefined : (options.key ?? ws.privateKey);
    const res = await app.request(method, path, { key, body: options.body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(options.status);
    expectMatchesOpenApi(res, method, template);
    visited.add(`${method} ${template}`);
    return res.body;
  }

  it("the tour", async () => {
    const f = restFixtures(app, ws.privateKey);
    // Fields first, so posts carry custom field values of every kind.
    const text = await visit("POST", "/v1/fields", "/v1/fields", {
      body: { key: "subtitle", name: "Subtitle", type: "text" },
      status: 201,
    });
    await f.post({ slug: "warm-up", categoryId: (await f.category("warm-up")).id });
    await visit("POST", "/v1/fields", "/v1/fields", {
      body: {
        key: "topics",
        name: "Topics",
        type: "multiselect",
        options: [
          { value: "a", label: "A" },
          { value: "b", label: "B" },
        ],
      },
      status: 201,
    });
    await visit("POST", "/v1/fields", "/v1/fields", {
      body: { key: "score", name: "Score", type: "number" },
      status: 201,
    });
    await visit("GET", "/v1/fields", "/v1/fields", { status: 200 });
    await visit("GET", "/v1/fields/{identifier}", "/v1/fields/subtitle", { status: 200 });
    await visit("PATCH", "/v1/fields/{identifier}", `/v1/fields/${text.field.id}`, {
      body: { description: "Under the title" },
      status: 200,
    });

    const category = (
      await visit("POST", "/v1/categories", "/v1/categories", {
        body: { name: "News", slug: "news" },
        status: 201,
      })
    ).category;
    const tag = (
      await visit("POST", "/v1/tags", "/v1/tags", {
        body: { name: "JS", slug: "js", description: "Script" },
        status: 201,
      })
    ).tag;
    const author = (
      await visit("POST", "/v1/authors", "/v1/authors", {
        body: { name: "Ann", slug: "ann", socials: [{ platform: "x", url: "https://x.com/ann" }] },
        status: 201,
      })
    ).author;
    const post = (
      await visit("POST", "/v1/posts", "/v1/posts", {
        body: {
          title: "Tour",
          content: "<p>Tour</p>",
          description: "d",
          slug: "tour",
          categoryId: category.id,
          status: "published",
          tags: [tag.id],
          authors: [author.id],
          coverImage: "https://img.example/tour.png",
          fields: { subtitle: "Sub", topics: ["a", "b"], score: 4.5 },
        },
        status: 201,
      })
    ).post;
    expect((await app.request("GET", "/v1/posts/tour", { key: ws.publicKey })).body.post.fields).toEqual({
      subtitle: "Sub",
      topics: ["a", "b"],
      score: 4.5,
    });

    await visit("GET", "/v1/posts", "/v1/posts?format=markdown", { key: ws.publicKey, status: 200 });
    await visit("GET", "/v1/posts/{identifier}", "/v1/posts/tour", { key: ws.publicKey, status: 200 });
    await visit("PATCH", "/v1/posts/{identifier}", "/v1/posts/tour", {
      body: { featured: true, fields: { score: null } },
      status: 200,
    });
    const revision = "/v1/posts/{identifier}/revisions/{number}";
    await visit("GET", "/v1/posts/{identifier}/revisions", "/v1/posts/tour/revisions", { status: 200 });
    await visit("GET", revision, "/v1/posts/tour/revisions/1", { status: 200 });
    await visit("GET", revision, "/v1/posts/tour/revisions/2?compare=1", { status: 200 });
    // Revision 2 is what the PATCH left: restoring it changes nothing the rest of the tour reads.
    await visit("POST", `${revision}/restore`, "/v1/posts/tour/revisions/2/restore", { status: 200 });
    const preview = "/v1/posts/{identifier}/preview";
    const { preview: made } = await visit("POST", preview, "/v1/posts/tour/preview", { status: 201 });
    await visit("GET", "/v1/posts/{identifier}", `/v1/posts/tour?preview=${made.token}`, {
      key: ws.publicKey,
      status: 200,
    });
    await visit("DELETE", preview, "/v1/posts/tour/preview", { status: 200 });
    for (const resource of ["categories", "tags"]) {
      await visit("GET", `/v1/${resource}`, `/v1/${resource}`, { key: ws.publicKey, status: 200 });
      await visit(
        "GET",
        `/v1/${resource}/{identifier}`,
        `/v1/${resource}/${resource === "tags" ? "js" : "news"}?include=posts`,
        {
          key: ws.publicKey,
          status: 200,
        },
      );
    }
    await visit("PATCH", "/v1/categories/{identifier}", "/v1/categories/news", {
      body: { description: "All news" },
      status: 200,
    });
    await visit("PATCH", "/v1/tags/{identifier}", `/v1/tags/${tag.id}`, {
      body: { description: null },
      status: 200,
    });
    await visit("GET", "/v1/authors", "/v1/authors", { key: ws.publicKey, status: 200 });
    await visit("GET", "/v1/authors/{identifier}", "/v1/authors/ann", { key: ws.publicKey, status: 200 });
    await visit("PATCH", "/v1/authors/{identifier}", "/v1/authors/ann", {
      body: { bio: "Writes", image: "https://img.example/ann.png" },
      status: 200,
    });

    for (const [template, path] of [
      ["/posts", "/posts"],
      ["/posts/{identifier}", "/posts/tour"],
      ["/categories", "/categories"],
      ["/categories/{identifier}", "/categories/news?include=posts"],
      ["/tags", "/tags"],
      ["/tags/{identifier}", "/tags/js"],
      ["/authors", "/authors"],
      ["/authors/{identifier}", `/authors/${author.id}`],
      ["/fields", "/fields"],
      ["/fields/{identifier}", "/fields/topics"],
      ["/locales", "/locales"],
    ] as const) {
      await visit("GET", `/v1/{workspace_id}${template}`, `/v1/${ws.id}${path}`, { key: null, status: 200 });
    }

    await visit("POST", "/v1/locales", "/v1/locales", {
      body: { code: "de", fallback: ["en"] },
      status: 201,
    });
    await visit("GET", "/v1/locales", "/v1/locales", { key: ws.publicKey, status: 200 });
    await visit("PATCH", "/v1/locales/{code}", "/v1/locales/de", { body: { isDefault: true }, status: 200 });

    const media = await uploadImage();
    visited.add("POST /v1/media/upload");
    await visit("GET", "/v1/media", "/v1/media", { key: ws.publicKey, status: 200 });
    await visit("GET", "/v1/media/{id}", `/v1/media/${media.id}`, { key: ws.publicKey, status: 200 });
    await visit("PATCH", "/v1/media/{id}", `/v1/media/${media.id}`, {
      body: { alt: "A red square" },
      status: 200,
    });
    await visit("DELETE", "/v1/media/{id}", `/v1/media/${media.id}`, { status: 200 });

    // The feed before the deletes: everything visible, as upserts; read again after them, tombstones.
    const feedBefore = await visit("GET", "/v1/changes", "/v1/changes?limit=100", { status: 200 });
    await visit("DELETE", "/v1/posts/{identifier}", `/v1/posts/${post.id}`, { status: 200 });
    await visit("DELETE", "/v1/tags/{identifier}", "/v1/tags/js", { status: 200 });
    await visit("DELETE", "/v1/authors/{identifier}", "/v1/authors/ann", { status: 200 });
    await visit("DELETE", "/v1/categories/{identifier}", "/v1/categories/news", { status: 200 });
    await visit("DELETE", "/v1/fields/{identifier}", "/v1/fields/topics", { status: 200 });
    await visit("PATCH", "/v1/locales/{code}", "/v1/locales/en", { body: { isDefault: true }, status: 200 });
    await visit("DELETE", "/v1/locales/{code}", "/v1/locales/de", { status: 200 });
    // After the writes above, so the log holds events of every resource, deletes included.
    await visit("GET", "/v1/events", "/v1/events?limit=100", { status: 200 });
    const feedAfter = await visit(
      "GET",
      "/v1/changes",
      `/v1/changes?since=${feedBefore.nextCursor}&limit=100`,
      {
        status: 200,
      },
    );
    expect(feedBefore.changes.map((entry: { op: string }) => entry.op)).toContain("upsert");
    expect(feedAfter.changes.map((entry: { op: string }) => entry.op)).toContain("delete");

    const webhook = (
      await visit("POST", "/v1/webhooks", "/v1/webhooks", {
        body: { url: "https://hooks.example.com/tour", events: ["post.published"] },
        status: 201,
      })
    ).webhook;
    await visit("GET", "/v1/webhooks", "/v1/webhooks", { status: 200 });
    await visit("GET", "/v1/webhooks/{id}", `/v1/webhooks/${webhook.id}`, { status: 200 });
    await visit("POST", "/v1/webhooks/{id}/replay", `/v1/webhooks/${webhook.id}/replay`, {
      body: {},
      status: 202,
    });
    const test = await visit("POST", "/v1/webhooks/{id}/test", `/v1/webhooks/${webhook.id}/test`, {
      status: 202,
    });
    await visit(
      "POST",
      "/v1/webhooks/{id}/deliveries/{deliveryId}/retry",
      `/v1/webhooks/${webhook.id}/deliveries/${test.delivery.id}/retry`,
      { status: 202 },
    );
    await visit("GET", "/v1/webhooks/{id}/deliveries", `/v1/webhooks/${webhook.id}/deliveries`, {
      status: 200,
    });
    await visit("PATCH", "/v1/webhooks/{id}", `/v1/webhooks/${webhook.id}`, {
      body: { events: ["*"], enabled: false },
      status: 200,
    });
    await visit("POST", "/v1/webhooks/{id}/rotate-secret", `/v1/webhooks/${webhook.id}/rotate-secret`, {
      status: 200,
    });
    await visit("DELETE", "/v1/webhooks/{id}", `/v1/webhooks/${webhook.id}`, { status: 200 });

    const newKey = await visit("POST", "/v1/keys", "/v1/keys", {
      body: { kind: "private", name: "tour", scopes: ["content:read"] },
      status: 201,
    });
    await visit("GET", "/v1/keys", "/v1/keys", { status: 200 });
    const rotated = await visit("POST", "/v1/keys/{id}/rotate", `/v1/keys/${newKey.apiKey.id}/rotate`, {
      body: { graceSeconds: 60 },
      status: 201,
    });
    await visit("POST", "/v1/keys/{id}/revoke", `/v1/keys/${rotated.apiKey.id}/revoke`, {
      body: { reason: "tour over", withRotation: true },
      status: 200,
    });

    // The workspace as bytes: the archive out, and back in (an import of its own export changes nothing).
    const archive = await fetch(`${app.url}/v1/export`, { headers: { authorization: ws.privateKey } });
    expect(archive.status).toBe(200);
    const document = (await app.request("GET", "/v1/openapi.json")).body;
    expect(Object.keys(document.paths["/v1/export"].get.responses["200"].content)).toEqual([
      archive.headers.get("content-type"),
    ]);
    visited.add("GET /v1/export");
    const imported = await fetch(`${app.url}/v1/import?dryRun=true`, {
      method: "POST",
      headers: { authorization: ws.privateKey, "content-type": "application/octet-stream" },
      body: new Uint8Array(await archive.arrayBuffer()),
    });
    const summary = { status: imported.status, body: await imported.json(), headers: imported.headers };
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    expectMatchesOpenApi(summary, "POST", "/v1/import");
    visited.add("POST /v1/import");

    expect([...visited].sort()).toEqual(openApiChecker().operations().sort());
  });
});

/** Uploads a small PNG as a multipart form (the one non-JSON request body) and checks the response. */
async function uploadImage(): Promise<{ id: string }> {
  const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: "#c00" } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "red.png");
  form.append("alt", "Red");
  const response = await fetch(`${app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: ws.privateKey },
    body: form,
  });
  const res = { status: response.status, headers: response.headers, body: await response.json() };
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expectMatchesOpenApi(res, "post", "/v1/media/upload");
  return res.body.media;
}
