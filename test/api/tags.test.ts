// /v1/tags: list (pagination, order by name, count.posts of published posts), get by id or slug (with
// include=posts), create, update, delete (a tag in use is removed from its posts), and every error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORBIDDEN, notFoundBody, SLUG_RULE } from "../helpers/expected-bodies.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { day, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const ids: Record<string, string> = {};

const LIST = "/v1/tags";
const ONE = "/v1/tags/{identifier}";
const notFound = (identifier: string) => notFoundBody("Tag", identifier);

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  other = await app.workspace("Other");
  const f = restFixtures(app, ws.privateKey);
  const category = await f.category("news");
  ids.news = category.id;
  // Created out of name order, so the list order can only come from the name.
  const rust = await f.tag("rust");
  const js = await f.tag("js", { description: "JavaScript" });
  const go = await f.tag("go");
  Object.assign(ids, { rust: rust.id, js: js.id, go: go.id });
  ids.p1 = (await f.post({ slug: "p1", categoryId: category.id, tags: [js.id], publishedAt: day(1) })).id;
  ids.p2 = (
    await f.post({ slug: "p2", categoryId: category.id, tags: [js.id, rust.id], publishedAt: day(2) })
  ).id;
  await f.post({
    slug: "p-draft",
    categoryId: category.id,
    tags: [js.id, go.id],
    status: "draft",
    publishedAt: day(3),
  });
  ids.otherTag = (await restFixtures(app, other.privateKey).tag("elsewhere")).id;
});
afterAll(async () => app?.close());

const call = openApiClient(
  () => app,
  () => ws.privateKey,
);

describe("GET /v1/tags", () => {
  it("lists tags by name with their count of published posts", async () => {
    const res = await call("GET", LIST, LIST, { key: ws.publicKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tags: [
        { id: ids.go, name: "Go", slug: "go", description: null, count: { posts: 0 } },
        { id: ids.js, name: "Js", slug: "js", description: "JavaScript", count: { posts: 2 } },
        { id: ids.rust, name: "Rust", slug: "rust", description: null, count: { posts: 1 } },
      ],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 1,
        totalItems: 3,
      },
    });
  });

  it("paginates: first, middle and last page, and 400 past the last", async () => {
    const page = async (n: number) => (await call("GET", `${LIST}?limit=1&page=${n}`, LIST)).body;
    expect(await page(1)).toEqual({
      tags: [expect.objectContaining({ slug: "go" })],
      pagination: { limit: 1, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 3, totalItems: 3 },
    });
    expect(await page(2)).toEqual({
      tags: [expect.objectContaining({ slug: "js" })],
      pagination: { limit: 1, currentPage: 2, nextPage: 3, previousPage: 1, totalPages: 3, totalItems: 3 },
    });
    expect(await page(3)).toEqual({
      tags: [expect.objectContaining({ slug: "rust" })],
      pagination: { limit: 1, currentPage: 3, nextPage: null, previousPage: 2, totalPages: 3, totalItems: 3 },
    });
    const past = await call("GET", `${LIST}?limit=1&page=4`, LIST);
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: "Invalid page number",
      details: { message: "Page 4 does not exist; there are 3 pages", totalPages: 3, requestedPage: 4 },
    });
  });

  it("gives an empty workspace an empty list, page 1 of 0", async () => {
    const empty = await app.workspace("Empty");
    const res = await call("GET", LIST, LIST, { key: empty.privateKey });
    expect(res.body).toEqual({
      tags: [],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 0,
        totalItems: 0,
      },
    });
  });

  it("answers 400 naming each invalid query parameter, 401 without a key", async () => {
    const res = await call("GET", `${LIST}?limit=0&page=x`, LIST);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid query parameters",
      details: [
        { field: "limit", message: "Must be at least 1" },
        { field: "page", message: "Expected number, received string" },
      ],
    });
    const unauthorized = await call("GET", LIST, LIST, { key: "pk_not_a_real_key" });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toEqual({
      error: "Unauthorized",
      message:
        "The API key is malformed: it is not a key this service issues (check that it was copied whole)",
    });
  });
});

describe("GET /v1/tags/{identifier}", () => {
  const js = () => ({ id: ids.js, name: "Js", slug: "js", description: "JavaScript", count: { posts: 2 } });

  it("reads a tag by id and by slug", async () => {
    for (const identifier of [ids.js, "js"]) {
      const res = await call("GET", `${LIST}/${identifier}`, ONE, { key: ws.publicKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tag: js() });
    }
  });

  it("include=posts adds a page of its published posts, newest first, 20 per page", async () => {
    const res = await call("GET", `${LIST}/js?include=posts`, ONE);
    expect(res.status).toBe(200);
    const summary = (slug: string, n: number) => ({
      id: ids[slug],
      title: slug.toUpperCase().slice(0, 1) + slug.slice(1),
      slug,
      description: `About ${slug}`,
      coverImage: null,
      publishedAt: day(n),
    });
    expect(res.body).toEqual({
      tag: {
        ...js(),
        posts: {
          data: [summary("p2", 2), summary("p1", 1)],
          pagination: {
            limit: 20,
            currentPage: 1,
            nextPage: null,
            previousPage: null,
            totalPages: 1,
            totalItems: 2,
          },
        },
      },
    });
  });

  it("include=posts pages with limit and page, and 400 past the last page", async () => {
    const res = await call("GET", `${LIST}/js?include=posts&limit=1&page=2`, ONE);
    expect(res.body.tag.posts).toEqual({
      data: [expect.objectContaining({ slug: "p1" })],
      pagination: { limit: 1, currentPage: 2, nextPage: null, previousPage: 1, totalPages: 2, totalItems: 2 },
    });
    const past = await call("GET", `${LIST}/js?include=posts&limit=1&page=3`, ONE);
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: "Invalid page number",
      details: { message: "Page 3 does not exist; there are 2 pages", totalPages: 2, requestedPage: 3 },
    });
  });

  it("answers 404 for an unknown tag and another workspace's tag", async () => {
    for (const identifier of ["missing", ids.otherTag, "elsewhere"]) {
      const res = await call("GET", `${LIST}/${identifier}`, ONE);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(identifier as string));
    }
  });
});

describe("POST /v1/tags", () => {
  it("creates a tag: 201 {tag: {id, name, slug, description}}", async () => {
    const res = await call("POST", LIST, LIST, { body: { name: "Python", slug: "python" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      tag: { id: expect.any(String), name: "Python", slug: "python", description: null },
    });
    const described = await call("POST", LIST, LIST, {
      body: { name: "Zig", slug: "zig", description: "Small language" },
    });
    expect(described.status).toBe(201);
    expect(described.body).toEqual({
      tag: { id: expect.any(String), name: "Zig", slug: "zig", description: "Small language" },
    });
  });

  it("answers 409 for a slug in use", async () => {
    const res = await call("POST", LIST, LIST, { body: { name: "JS again", slug: "js" } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Slug already in use",
      message: "This slug is already used by another record of this kind in the workspace",
    });
  });

  it("answers 400 naming each invalid field", async () => {
    const res = await call("POST", LIST, LIST, { body: { name: "", slug: "ok" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [{ field: "name", message: "Too small: expected string to have >=1 characters" }],
    });
    const slug = await call("POST", LIST, LIST, { body: { name: "Ok", slug: "-leading" } });
    expect(slug.body).toEqual({
      error: "Validation failed",
      message: "Invalid tag",
      details: [{ field: "slug", message: SLUG_RULE }],
    });
  });

  it("answers 403 for a public key", async () => {
    const res = await call("POST", LIST, LIST, { key: ws.publicKey, body: { name: "X", slug: "x" } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe("PATCH /v1/tags/{identifier}", () => {
  it("changes only the given fields: 200 {tag}", async () => {
    const created = (
      await call("POST", LIST, LIST, { body: { name: "Old", slug: "old-tag", description: "Keep" } })
    ).body.tag;
    const renamed = await call("PATCH", `${LIST}/old-tag`, ONE, { body: { name: "New" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      tag: { id: created.id, name: "New", slug: "old-tag", description: "Keep" },
    });
    const cleared = await call("PATCH", `${LIST}/${created.id}`, ONE, {
      body: { slug: "new-tag", description: null },
    });
    expect(cleared.body).toEqual({
      tag: { id: created.id, name: "New", slug: "new-tag", description: null },
    });
  });

  it("answers 409, 400, 404 and 403", async () => {
    const conflict = await call("PATCH", `${LIST}/go`, ONE, { body: { slug: "rust" } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe("Slug already in use");
    const invalid = await call("PATCH", `${LIST}/go`, ONE, { body: { name: "  " } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      error: "Validation failed",
      message: "Invalid tag",
      details: [{ field: "name", message: "Must be at least 1 character" }],
    });
    const missing = await call("PATCH", `${LIST}/${ids.otherTag}`, ONE, { body: { name: "Mine now" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(notFound(ids.otherTag as string));
    const forbidden = await call("PATCH", `${LIST}/go`, ONE, { key: ws.publicKey, body: { name: "X" } });
    expect(forbidden.status).toBe(403);
  });
});

describe("DELETE /v1/tags/{identifier}", () => {
  it("deletes a tag in use: 200 {id}; its posts lose it", async () => {
    const res = await call("DELETE", `${LIST}/rust`, ONE);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: ids.rust });
    expect((await call("GET", `${LIST}/rust`, ONE)).status).toBe(404);
    const post = await app.request("GET", "/v1/posts/p2", { key: ws.privateKey });
    expect(post.body.post.tags).toEqual([{ id: ids.js, name: "Js", slug: "js", description: "JavaScript" }]);
  });

  it("answers 404 for an unknown tag or one already deleted, 403 for a public key", async () => {
    const res = await call("DELETE", `${LIST}/${ids.rust}`, ONE);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(ids.rust as string));
    const forbidden = await call("DELETE", `${LIST}/go`, ONE, { key: ws.publicKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
  });
});
