// /v1/categories: list (pagination, order by name, count.posts of published posts), get by id or slug
// (with include=posts), create, update, delete (refused while posts remain), and every error status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORBIDDEN, notFoundBody, SLUG_RULE } from "../helpers/expected-bodies.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { day, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const ids: Record<string, string> = {};

const LIST = "/v1/categories";
const ONE = "/v1/categories/{identifier}";
const notFound = (identifier: string) => notFoundBody("Category", identifier);

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  other = await app.workspace("Other");
  const f = restFixtures(app, ws.privateKey);
  // Created out of name order, so the list order can only come from the name.
  const travel = await f.category("travel");
  const news = await f.category("news", { description: "What happened" });
  const art = await f.category("art");
  Object.assign(ids, { travel: travel.id, news: news.id, art: art.id });
  for (const [slug, n] of [
    ["n1", 1],
    ["n3", 3],
    ["n2", 2],
  ] as const) {
    ids[slug] = (
      await f.post({
        slug,
        categoryId: news.id,
        publishedAt: day(n),
        coverImage: n === 1 ? "https://cdn.example.com/n1.png" : null,
      })
    ).id;
  }
  await f.post({ slug: "n-draft", categoryId: news.id, status: "draft", publishedAt: day(9) });
  await f.post({ slug: "t-draft", categoryId: travel.id, status: "draft", publishedAt: day(4) });
  ids.otherCategory = (await restFixtures(app, other.privateKey).category("elsewhere")).id;
});
afterAll(async () => app?.close());

const call = openApiClient(
  () => app,
  () => ws.privateKey,
);

describe("GET /v1/categories", () => {
  it("lists categories by name with their count of published posts", async () => {
    const res = await call("GET", LIST, LIST, { key: ws.publicKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      categories: [
        { id: ids.art, name: "Art", slug: "art", description: null, count: { posts: 0 } },
        { id: ids.news, name: "News", slug: "news", description: "What happened", count: { posts: 3 } },
        { id: ids.travel, name: "Travel", slug: "travel", description: null, count: { posts: 0 } },
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

  it("paginates: first, middle and last page", async () => {
    const page = async (n: number) => (await call("GET", `${LIST}?limit=1&page=${n}`, LIST)).body;
    expect(await page(1)).toEqual({
      categories: [expect.objectContaining({ slug: "art" })],
      pagination: { limit: 1, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 3, totalItems: 3 },
    });
    expect(await page(2)).toEqual({
      categories: [expect.objectContaining({ slug: "news" })],
      pagination: { limit: 1, currentPage: 2, nextPage: 3, previousPage: 1, totalPages: 3, totalItems: 3 },
    });
    expect(await page(3)).toEqual({
      categories: [expect.objectContaining({ slug: "travel" })],
      pagination: { limit: 1, currentPage: 3, nextPage: null, previousPage: 2, totalPages: 3, totalItems: 3 },
    });
  });

  it("answers 400 for a page past the last one", async () => {
    const res = await call("GET", `${LIST}?limit=2&page=3`, LIST);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Invalid page number",
      details: { message: "Page 3 does not exist; there are 2 pages", totalPages: 2, requestedPage: 3 },
    });
  });

  it("gives an empty workspace an empty list, page 1 of 0; a later page is past the last (400)", async () => {
    const empty = await app.workspace("Empty");
    const res = await call("GET", `${LIST}?page=1`, LIST, { key: empty.publicKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      categories: [],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 0,
        totalItems: 0,
      },
    });
    const past = await call("GET", `${LIST}?page=4`, LIST, { key: empty.publicKey });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: "Invalid page number",
      details: { message: "Page 4 does not exist; there are 0 pages", totalPages: 0, requestedPage: 4 },
    });
  });

  it("answers 400 naming each invalid query parameter", async () => {
    const res = await call("GET", `${LIST}?limit=abc&page=0`, LIST);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid query parameters",
      details: [
        { field: "limit", message: "Expected number, received string" },
        { field: "page", message: "Must be at least 1" },
      ],
    });
    const tooMany = await call("GET", `${LIST}?limit=101`, LIST);
    expect(tooMany.body.details).toEqual([{ field: "limit", message: "Must be at most 100" }]);
  });

  it("answers 401 without a valid key", async () => {
    const res = await call("GET", LIST, LIST, { key: "" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: "Unauthorized",
      message: "An API key is required: send it in the Authorization header (`<key>` or `Bearer <key>`)",
    });
  });
});

describe("GET /v1/categories/{identifier}", () => {
  const news = () => ({
    id: ids.news,
    name: "News",
    slug: "news",
    description: "What happened",
    count: { posts: 3 },
  });

  it("reads a category by id and by slug", async () => {
    for (const identifier of [ids.news, "news"]) {
      const res = await call("GET", `${LIST}/${identifier}`, ONE, { key: ws.publicKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ category: news() });
    }
  });

  it("include=posts adds a page of its published posts, newest first, 20 per page", async () => {
    const res = await call("GET", `${LIST}/news?include=posts`, ONE);
    expect(res.status).toBe(200);
    const summary = (slug: string, n: number, coverImage: string | null = null) => ({
      id: ids[slug],
      title: slug.toUpperCase().slice(0, 1) + slug.slice(1),
      slug,
      description: `About ${slug}`,
      coverImage,
      publishedAt: day(n),
    });
    expect(res.body).toEqual({
      category: {
        ...news(),
        posts: {
          data: [summary("n3", 3), summary("n2", 2), summary("n1", 1, "https://cdn.example.com/n1.png")],
          pagination: {
            limit: 20,
            currentPage: 1,
            nextPage: null,
            previousPage: null,
            totalPages: 1,
            totalItems: 3,
          },
        },
      },
    });
  });

  it("include=posts pages with limit and page", async () => {
    const res = await call("GET", `${LIST}/news?include=posts&limit=2&page=2`, ONE);
    expect(res.body.category.posts).toEqual({
      data: [expect.objectContaining({ slug: "n1" })],
      pagination: { limit: 2, currentPage: 2, nextPage: null, previousPage: 1, totalPages: 2, totalItems: 3 },
    });
    const past = await call("GET", `${LIST}/news?include=posts&page=2`, ONE);
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: "Invalid page number",
      details: { message: "Page 2 does not exist; there is 1 page", totalPages: 1, requestedPage: 2 },
    });
  });

  it("include=posts of a category without published posts is an empty page", async () => {
    const res = await call("GET", `${LIST}/travel?include=posts`, ONE);
    expect(res.body).toEqual({
      category: {
        id: ids.travel,
        name: "Travel",
        slug: "travel",
        description: null,
        count: { posts: 0 },
        posts: {
          data: [],
          pagination: {
            limit: 20,
            currentPage: 1,
            nextPage: null,
            previousPage: null,
            totalPages: 0,
            totalItems: 0,
          },
        },
      },
    });
  });

  it("answers 400 for an unknown include", async () => {
    const res = await call("GET", `${LIST}/news?include=authors`, ONE);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid query parameters",
      details: [{ field: "include", message: "Must be one of: posts" }],
    });
  });

  it("answers 404 for an unknown category and for another workspace's category", async () => {
    for (const identifier of ["missing", ids.otherCategory, "elsewhere"]) {
      const res = await call("GET", `${LIST}/${identifier}`, ONE);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(identifier as string));
    }
  });
});

describe("POST /v1/categories", () => {
  it("creates a category: 201 {category: {id, name, slug, description}}", async () => {
    const res = await call("POST", LIST, LIST, { body: { name: "Recipes", slug: "recipes" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      category: { id: expect.any(String), name: "Recipes", slug: "recipes", description: null },
    });
    const described = await call("POST", LIST, LIST, {
      body: { name: "Science", slug: "science", description: "Facts" },
    });
    expect(described.status).toBe(201);
    expect(described.body).toEqual({
      category: { id: expect.any(String), name: "Science", slug: "science", description: "Facts" },
    });
    const read = await call("GET", `${LIST}/science`, ONE);
    expect(read.body).toEqual({ category: { ...described.body.category, count: { posts: 0 } } });
  });

  it("answers 409 for a slug already in use", async () => {
    const res = await call("POST", LIST, LIST, { body: { name: "News again", slug: "news" } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Slug already in use",
      message: "This slug is already used by another record of this kind in the workspace",
    });
  });

  it("answers 400 naming each invalid field", async () => {
    const empty = await call("POST", LIST, LIST, { body: { name: "", slug: "" } });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [
        { field: "name", message: "Too small: expected string to have >=1 characters" },
        { field: "slug", message: "Too small: expected string to have >=1 characters" },
      ],
    });
    const invalid = await call("POST", LIST, LIST, { body: { name: "   ", slug: "Not A Slug" } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      error: "Validation failed",
      message: "Invalid category",
      details: [
        { field: "name", message: "Must be at least 1 character" },
        { field: "slug", message: SLUG_RULE },
      ],
    });
    const missing = await call("POST", LIST, LIST, { body: { description: 5 } });
    expect(missing.body.details).toEqual([
      { field: "name", message: "Invalid input: expected string, received undefined" },
      { field: "slug", message: "Invalid input: expected string, received undefined" },
      { field: "description", message: "Invalid input: expected string, received number" },
    ]);
  });

  it("answers 400 for malformed JSON", async () => {
    const res = await call("POST", LIST, LIST, { body: '{"name": "x",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Invalid JSON", message: "The request body is not valid JSON" });
  });

  it("answers 403 for a public key and 401 without a key", async () => {
    const forbidden = await call("POST", LIST, LIST, { key: ws.publicKey, body: { name: "X", slug: "x" } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
    const unauthorized = await call("POST", LIST, LIST, { key: "", body: { name: "X", slug: "x" } });
    expect(unauthorized.status).toBe(401);
  });
});

describe("PATCH /v1/categories/{identifier}", () => {
  it("changes only the given fields: 200 {category}", async () => {
    const created = (
      await call("POST", LIST, LIST, { body: { name: "Old", slug: "old", description: "Keep" } })
    ).body.category;
    const renamed = await call("PATCH", `${LIST}/${created.id}`, ONE, { body: { name: "New" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      category: { id: created.id, name: "New", slug: "old", description: "Keep" },
    });
    const moved = await call("PATCH", `${LIST}/old`, ONE, { body: { slug: "moved", description: null } });
    expect(moved.body).toEqual({
      category: { id: created.id, name: "New", slug: "moved", description: null },
    });
    const unchanged = await call("PATCH", `${LIST}/moved`, ONE, { body: {} });
    expect(unchanged.body).toEqual(moved.body);
  });

  it("answers 409 for another category's slug", async () => {
    const res = await call("PATCH", `${LIST}/art`, ONE, { body: { slug: "news" } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Slug already in use",
      message: "This slug is already used by another record of this kind in the workspace",
    });
  });

  it("answers 400 for invalid values", async () => {
    const res = await call("PATCH", `${LIST}/art`, ONE, { body: { name: null, slug: "Bad!" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [{ field: "name", message: "Invalid input: expected string, received null" }],
    });
    const slug = await call("PATCH", `${LIST}/art`, ONE, { body: { slug: "Bad!" } });
    expect(slug.body).toEqual({
      error: "Validation failed",
      message: "Invalid category",
      details: [{ field: "slug", message: SLUG_RULE }],
    });
  });

  it("answers 404 for an unknown category or another workspace's, 403 for a public key", async () => {
    for (const identifier of ["missing", ids.otherCategory]) {
      const res = await call("PATCH", `${LIST}/${identifier}`, ONE, { body: { name: "X" } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(identifier as string));
    }
    const forbidden = await call("PATCH", `${LIST}/art`, ONE, { key: ws.publicKey, body: { name: "X" } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
  });
});

describe("DELETE /v1/categories/{identifier}", () => {
  it("deletes a category without posts: 200 {id}; it is gone", async () => {
    const created = (await call("POST", LIST, LIST, { body: { name: "Doomed", slug: "doomed" } })).body
      .category;
    const res = await call("DELETE", `${LIST}/doomed`, ONE);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id });
    expect((await call("GET", `${LIST}/${created.id}`, ONE)).status).toBe(404);
    expect((await call("DELETE", `${LIST}/${created.id}`, ONE)).body).toEqual(notFound(created.id));
  });

  it("answers 400 for a category that still has posts, drafts included", async () => {
    const news = await call("DELETE", `${LIST}/news`, ONE);
    expect(news.status).toBe(400);
    expect(news.body).toEqual({
      error: "Validation failed",
      message: 'Category "news" still has 4 posts',
      details: [{ field: "identifier", message: "Move or delete the category's posts first" }],
    });
    const travel = await call("DELETE", `${LIST}/${ids.travel}`, ONE);
    expect(travel.status).toBe(400);
    expect(travel.body.message).toBe(`Category "${ids.travel}" still has 1 post`);
    expect((await call("GET", `${LIST}/travel`, ONE)).status).toBe(200);
  });

  it("answers 404 for another workspace's category and 403 for a public key", async () => {
    const res = await call("DELETE", `${LIST}/${ids.otherCategory}`, ONE);
    expect(res.status).toBe(404);
    const forbidden = await call("DELETE", `${LIST}/art`, ONE, { key: ws.publicKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
    expect((await call("GET", `${LIST}/art`, ONE)).status).toBe(200);
  });
});
