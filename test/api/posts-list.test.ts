// GET /v1/posts: visibility, ordering, every filter and their combinations, search, format, and the
// pagination arithmetic and query validation of the contract.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { day, isoDate, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let empty: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  empty = await app.workspace("Empty");
  const f = restFixtures(app, ws.privateKey);
  const [news, guides, changelog] = [
    await f.category("news"),
    await f.category("guides"),
    await f.category("changelog"),
  ];
  const [js, react, old] = [await f.tag("js"), await f.tag("react"), await f.tag("old")];
  // Created out of date order, so ordering can only come from publishedAt.
  await f.post({ slug: "release-1", categoryId: changelog.id, tags: [old.id], publishedAt: day(3) });
  await f.post({
    slug: "intro",
    title: "Kubernetes introduction",
    categoryId: news.id,
    tags: [js.id],
    publishedAt: day(1),
  });
  await f.post({
    slug: "news-today",
    categoryId: news.id,
    content: "<p>We mention kubernetes once.</p>",
    publishedAt: day(6),
  });
  await f.post({
    slug: "react-hooks",
    categoryId: guides.id,
    tags: [js.id, react.id],
    featured: true,
    publishedAt: day(2),
  });
  await f.post({
    slug: "vue-tips",
    categoryId: guides.id,
    tags: [old.id, js.id],
    featured: true,
    publishedAt: day(4),
  });
  await f.post({
    slug: "draft-one",
    categoryId: news.id,
    status: "draft",
    content: "<p>kubernetes draft</p>",
    publishedAt: day(5),
  });
});
afterAll(async () => app?.close());

/** GET /v1/posts with a query string; checks the response against the OpenAPI document. */
async function list(query = "", key = ws.publicKey) {
  const res = await app.request("GET", `/v1/posts${query ? `?${query}` : ""}`, { key });
  expectMatchesOpenApi(res, "get", "/v1/posts");
  return res;
}

async function slugs(query: string, key = ws.publicKey): Promise<string[]> {
  const res = await list(query, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.posts.map((post: { slug: string }) => post.slug);
}

describe("GET /v1/posts: visibility and order", () => {
  it("lists published posts only, newest publishedAt first", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.posts.map((p: { slug: string }) => p.slug)).toEqual([
      "news-today",
      "vue-tips",
      "release-1",
      "react-hooks",
      "intro",
    ]);
    expect(res.body.pagination).toEqual({
      limit: 10,
      currentPage: 1,
      nextPage: null,
      previousPage: null,
      totalPages: 1,
      totalItems: 5,
    });
  });

  it("gives every post in the read form, with its category, tags and authors", async () => {
    const res = await list("categories=guides&featured=true&tags=react");
    expect(res.body.posts).toEqual([
      {
        id: expect.any(String),
        slug: "react-hooks",
        title: "React hooks",
        status: "published",
        featured: true,
        coverImage: null,
        description: "About react-hooks",
        publishedAt: day(2),
        scheduled: false,
        updatedAt: isoDate,
        attribution: null,
        content: "<p>Body of react-hooks</p>",
        authors: [],
        category: { id: expect.any(String), name: "Guides", slug: "guides", description: null },
        tags: [
          { id: expect.any(String), name: "Js", slug: "js", description: null },
          { id: expect.any(String), name: "React", slug: "react", description: null },
        ],
        fields: {},
      },
    ]);
  });

  it("order=asc lists oldest first; order=desc is the default", async () => {
    expect(await slugs("order=asc")).toEqual(["intro", "react-hooks", "release-1", "vue-tips", "news-today"]);
    expect(await slugs("order=desc")).toEqual(await slugs(""));
  });

  it("status=draft lists only drafts, status=all everything, with a private key", async () => {
    expect(await slugs("status=draft", ws.privateKey)).toEqual(["draft-one"]);
    expect(await slugs("status=all", ws.privateKey)).toEqual([
      "news-today",
      "draft-one",
      "vue-tips",
      "release-1",
      "react-hooks",
      "intro",
    ]);
    expect(await slugs("status=published", ws.privateKey)).toEqual([
      "news-today",
      "vue-tips",
      "release-1",
      "react-hooks",
      "intro",
    ]);
  });

  it("status=draft and status=all are refused (403) with a public key: public keys never see drafts", async () => {
    for (const status of ["draft", "all"]) {
      const res = await list(`status=${status}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "Forbidden",
        message: expect.stringMatching(/private/i),
        requiredScope: "drafts:read",
      });
    }
  });

  it("format=markdown returns each post's content as markdown", async () => {
    const res = await list("format=markdown&categories=changelog");
    expect(res.body.posts.map((p: { content: string }) => p.content)).toEqual(["Body of release-1"]);
    const html = await list("format=html&categories=changelog");
    expect(html.body.posts.map((p: { content: string }) => p.content)).toEqual(["<p>Body of release-1</p>"]);
  });
});

describe("GET /v1/posts: filters", () => {
  it("categories: posts in any of the given categories, comma separated or repeated", async () => {
    expect(await slugs("categories=news")).toEqual(["news-today", "intro"]);
    expect(await slugs("categories=news,guides")).toEqual(["news-today", "vue-tips", "react-hooks", "intro"]);
    expect(await slugs("categories=news&categories=guides")).toEqual([
      "news-today",
      "vue-tips",
      "react-hooks",
      "intro",
    ]);
    expect(await slugs("categories=unknown")).toEqual([]);
  });

  it("excludeCategories: posts in none of the given categories", async () => {
    expect(await slugs("excludeCategories=guides")).toEqual(["news-today", "release-1", "intro"]);
    expect(await slugs("excludeCategories=guides,changelog")).toEqual(["news-today", "intro"]);
    expect(await slugs("excludeCategories=guides&excludeCategories=changelog")).toEqual([
      "news-today",
      "intro",
    ]);
  });

  it("tags: posts with any of the given tags", async () => {
    expect(await slugs("tags=react")).toEqual(["react-hooks"]);
    expect(await slugs("tags=react,old")).toEqual(["vue-tips", "release-1", "react-hooks"]);
    expect(await slugs("tags=react&tags=old")).toEqual(["vue-tips", "release-1", "react-hooks"]);
  });

  it("excludeTags: posts with none of the given tags", async () => {
    expect(await slugs("excludeTags=old")).toEqual(["news-today", "react-hooks", "intro"]);
    expect(await slugs("excludeTags=old,react")).toEqual(["news-today", "intro"]);
    expect(await slugs("excludeTags=old&excludeTags=react")).toEqual(["news-today", "intro"]);
  });

  it("featured=true and featured=false", async () => {
    expect(await slugs("featured=true")).toEqual(["vue-tips", "react-hooks"]);
    expect(await slugs("featured=false")).toEqual(["news-today", "release-1", "intro"]);
  });

  it("combines filters: every one must hold", async () => {
    expect(await slugs("categories=guides&tags=js&excludeTags=old")).toEqual(["react-hooks"]);
    expect(await slugs("categories=news,guides&featured=false")).toEqual(["news-today", "intro"]);
    expect(await slugs("tags=js&excludeCategories=news&order=asc")).toEqual(["react-hooks", "vue-tips"]);
    expect(await slugs("categories=news&status=all", ws.privateKey)).toEqual([
      "news-today",
      "draft-one",
      "intro",
    ]);
    expect(await slugs("featured=true&excludeTags=js")).toEqual([]);
  });
});

describe("GET /v1/posts: query (full-text search)", () => {
  it("matches words of the title and of the content", async () => {
    expect(await slugs("query=introduction")).toEqual(["intro"]);
    expect(await slugs("query=mention")).toEqual(["news-today"]);
  });

  it("ranks matches: a title match before a content match, whatever their dates", async () => {
    expect(await slugs("query=kubernetes")).toEqual(["intro", "news-today"]);
  });

  it("an explicit order sorts the matches by publishedAt instead", async () => {
    expect(await slugs("query=kubernetes&order=desc")).toEqual(["news-today", "intro"]);
    expect(await slugs("query=kubernetes&order=asc")).toEqual(["intro", "news-today"]);
  });

  it("pages through ranked matches", async () => {
    const first = await list("query=kubernetes&limit=1");
    expect(first.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["intro"]);
    expect(first.body.pagination).toEqual({
      limit: 1,
      currentPage: 1,
      nextPage: 2,
      previousPage: null,
      totalPages: 2,
      totalItems: 2,
    });
    const second = await list("query=kubernetes&limit=1&page=2");
    expect(second.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["news-today"]);
  });

  it("combines with the other filters and never shows drafts by default", async () => {
    expect((await slugs("query=kubernetes&categories=news&featured=false")).sort()).toEqual([
      "intro",
      "news-today",
    ]);
    expect(await slugs("query=kubernetes&tags=js")).toEqual(["intro"]);
    expect(await slugs("query=kubernetes&status=draft", ws.privateKey)).toEqual(["draft-one"]);
  });

  it("a query that matches nothing gives the empty page", async () => {
    const res = await list("query=zeppelin");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      posts: [],
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
});

describe("GET /v1/posts: pagination", () => {
  const page = (n: number) => list(`limit=2&page=${n}`);

  it("first page", async () => {
    const res = await page(1);
    expect(res.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["news-today", "vue-tips"]);
    expect(res.body.pagination).toEqual({
      limit: 2,
      currentPage: 1,
      nextPage: 2,
      previousPage: null,
      totalPages: 3,
      totalItems: 5,
    });
  });

  it("middle page", async () => {
    const res = await page(2);
    expect(res.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["release-1", "react-hooks"]);
    expect(res.body.pagination).toEqual({
      limit: 2,
      currentPage: 2,
      nextPage: 3,
      previousPage: 1,
      totalPages: 3,
      totalItems: 5,
    });
  });

  it("last page, partly filled", async () => {
    const res = await page(3);
    expect(res.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["intro"]);
    expect(res.body.pagination).toEqual({
      limit: 2,
      currentPage: 3,
      nextPage: null,
      previousPage: 2,
      totalPages: 3,
      totalItems: 5,
    });
  });

  it("a page past the last is a 400 naming the page count", async () => {
    const res = await page(4);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Invalid page number",
      details: { message: expect.any(String), totalPages: 3, requestedPage: 4 },
    });
  });

  it("page 1 of an empty list is an empty page: totalPages 0, totalItems 0, currentPage 1", async () => {
    for (const [query, key] of [
      ["", empty.publicKey],
      ["page=1", empty.publicKey],
      ["tags=nope&page=1", ws.publicKey],
    ] as const) {
      const res = await list(query, key);
      expect(res.status, query).toBe(200);
      expect(res.body).toEqual({
        posts: [],
        pagination: {
          limit: 10,
          currentPage: 1,
          nextPage: null,
          previousPage: null,
          totalPages: 0,
          totalItems: 0,
        },
      });
    }
  });

  it("a later page of an empty list, filtered or not, is past the last: the same 400 as with items", async () => {
    for (const [query, key, requestedPage] of [
      ["page=2", empty.publicKey, 2],
      ["tags=nope&page=2", ws.publicKey, 2],
      ["query=zeppelin&limit=5&page=3", ws.publicKey, 3],
    ] as const) {
      const res = await list(query, key);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({
        error: "Invalid page number",
        details: {
          message: `Page ${requestedPage} does not exist; there are 0 pages`,
          totalPages: 0,
          requestedPage,
        },
      });
    }
  });

  it("limit 100 is allowed", async () => {
    const res = await list("limit=100");
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({
      limit: 100,
      currentPage: 1,
      nextPage: null,
      previousPage: null,
      totalPages: 1,
      totalItems: 5,
    });
  });
});

describe("GET /v1/posts: query validation", () => {
  const invalid = (details: { field: string; message: unknown }[]) => ({
    error: expect.any(String),
    message: expect.any(String),
    details,
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=-5", "limit"],
    ["limit=2.5", "limit"],
    ["page=0", "page"],
    ["page=x", "page"],
    ["order=sideways", "order"],
    ["status=hidden", "status"],
    ["format=pdf", "format"],
    ["featured=yes", "featured"],
  ])("%s → 400 naming %s", async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalid([{ field, message: expect.any(String) }]));
  });

  it("a non-numeric limit says what was expected", async () => {
    const res = await list("limit=abc");
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalid([{ field: "limit", message: "Expected number, received string" }]));
  });

  it("names every bad parameter at once", async () => {
    const res = await list("limit=abc&page=0&order=up");
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      "limit",
      "order",
      "page",
    ]);
  });
});
