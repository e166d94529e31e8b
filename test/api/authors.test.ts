// /v1/authors: list (pagination, order by name, count.posts of published posts), get by id or slug,
// create, update (socials replaced), delete, and every error: validation of e-mail, image URL and
// socials, 404, 409, 403.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORBIDDEN, notFoundBody, SLUG_RULE } from "../helpers/expected-bodies.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const ids: Record<string, string> = {};

const LIST = "/v1/authors";
const ONE = "/v1/authors/{identifier}";
const notFound = (identifier: string) => notFoundBody("Author", identifier);
const ZOE_SOCIALS = [
  { platform: "github", url: "https://github.com/zoe" },
  { platform: "x", url: "https://x.com/zoe" },
];

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  other = await app.workspace("Other");
  const f = restFixtures(app, ws.privateKey);
  // Created out of name order, so the list order can only come from the name.
  const zoe = await f.author("zoe", {
    name: "Zoe Writer",
    bio: "Writes things",
    role: "Editor",
    email: "zoe@example.com",
    image: "https://cdn.example.com/zoe.png",
    socials: ZOE_SOCIALS,
  });
  const adam = await f.author("adam", { name: "Adam Author" });
  const category = await f.category("news");
  Object.assign(ids, { zoe: zoe.id, adam: adam.id, news: category.id });
  await f.post({ slug: "p1", categoryId: category.id, authors: [zoe.id, adam.id] });
  await f.post({ slug: "p2", categoryId: category.id, authors: [zoe.id] });
  await f.post({ slug: "p3", categoryId: category.id, authors: [adam.id], status: "draft" });
  ids.otherAuthor = (await restFixtures(app, other.privateKey).author("elsewhere")).id;
});
afterAll(async () => app?.close());

const call = openApiClient(
  () => app,
  () => ws.privateKey,
);

const zoe = () => ({
  id: ids.zoe,
  name: "Zoe Writer",
  slug: "zoe",
  image: "https://cdn.example.com/zoe.png",
  bio: "Writes things",
  role: "Editor",
  socials: ZOE_SOCIALS,
});
const adam = () => ({
  id: ids.adam,
  name: "Adam Author",
  slug: "adam",
  image: null,
  bio: null,
  role: null,
  socials: [],
});

describe("GET /v1/authors", () => {
  it("lists authors by name with their count of published posts", async () => {
    const res = await call("GET", LIST, LIST, { key: ws.publicKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      authors: [
        { ...adam(), count: { posts: 1 } },
        { ...zoe(), count: { posts: 2 } },
      ],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 1,
        totalItems: 2,
      },
    });
  });

  it("paginates and answers 400 past the last page", async () => {
    const first = await call("GET", `${LIST}?limit=1`, LIST);
    expect(first.body).toEqual({
      authors: [{ ...adam(), count: { posts: 1 } }],
      pagination: { limit: 1, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 2, totalItems: 2 },
    });
    const last = await call("GET", `${LIST}?limit=1&page=2`, LIST);
    expect(last.body).toEqual({
      authors: [{ ...zoe(), count: { posts: 2 } }],
      pagination: { limit: 1, currentPage: 2, nextPage: null, previousPage: 1, totalPages: 2, totalItems: 2 },
    });
    const past = await call("GET", `${LIST}?limit=1&page=3`, LIST);
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: "Invalid page number",
      details: { message: "Page 3 does not exist; there are 2 pages", totalPages: 2, requestedPage: 3 },
    });
  });

  it("gives an empty workspace an empty list, page 1 of 0", async () => {
    const empty = await app.workspace("Empty");
    const res = await call("GET", LIST, LIST, { key: empty.publicKey });
    expect(res.body).toEqual({
      authors: [],
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

  it("answers 400 for invalid query parameters and 401 without a key", async () => {
    const res = await call("GET", `${LIST}?limit=1000`, LIST);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid query parameters",
      details: [{ field: "limit", message: "Must be at most 100" }],
    });
    expect((await call("GET", LIST, LIST, { key: "" })).status).toBe(401);
  });
});

describe("GET /v1/authors/{identifier}", () => {
  it("reads an author by id and by slug, never with the e-mail address", async () => {
    for (const identifier of [ids.zoe, "zoe"]) {
      const res = await call("GET", `${LIST}/${identifier}`, ONE, { key: ws.publicKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ author: { ...zoe(), count: { posts: 2 } } });
    }
  });

  it("answers 404 for an unknown author and another workspace's author", async () => {
    for (const identifier of ["nobody", ids.otherAuthor, "elsewhere"]) {
      const res = await call("GET", `${LIST}/${identifier}`, ONE);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(identifier as string));
    }
  });
});

describe("POST /v1/authors", () => {
  it("creates an author: 201 {author: {id, name, slug, bio, role, image, socials}}", async () => {
    const res = await call("POST", LIST, LIST, {
      body: {
        name: "New Writer",
        slug: "new-writer",
        bio: "Bio",
        role: "Staff",
        email: "new@example.com",
        image: "https://cdn.example.com/new.png",
        socials: [{ platform: "bluesky", url: "https://bsky.app/profile/new" }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      author: {
        id: expect.any(String),
        name: "New Writer",
        slug: "new-writer",
        bio: "Bio",
        role: "Staff",
        image: "https://cdn.example.com/new.png",
        socials: [{ platform: "bluesky", url: "https://bsky.app/profile/new" }],
      },
    });
  });

  it("creates an author from name and slug alone", async () => {
    const res = await call("POST", LIST, LIST, { body: { name: "Minimal", slug: "minimal" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      author: {
        id: expect.any(String),
        name: "Minimal",
        slug: "minimal",
        bio: null,
        role: null,
        image: null,
        socials: [],
      },
    });
  });

  it("answers 400 naming each invalid field of the body", async () => {
    const res = await call("POST", LIST, LIST, {
      body: {
        name: "",
        slug: "ok",
        email: "not-an-email",
        image: "not a url",
        socials: [{ platform: "myspace", url: "nope" }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [
        { field: "name", message: "Too small: expected string to have >=1 characters" },
        { field: "email", message: "Invalid email address" },
        { field: "image", message: "Invalid URL" },
        {
          field: "socials.0.platform",
          message:
            'Invalid option: expected one of "x"|"twitter"|"github"|"facebook"|"instagram"|"youtube"|"tiktok"|"linkedin"|"website"|"onlyfans"|"discord"|"bluesky"',
        },
        { field: "socials.0.url", message: "Invalid URL" },
      ],
    });
  });

  it("answers 400 for URLs that are not http(s) and for a bad slug", async () => {
    const res = await call("POST", LIST, LIST, {
      body: {
        name: "Sneaky",
        slug: "Sneaky Slug",
        image: "javascript:alert(1)",
        socials: [
          { platform: "website", url: "https://ok.example.com" },
          { platform: "x", url: "ftp://x.com/sneaky" },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid author",
      details: [
        { field: "slug", message: SLUG_RULE },
        { field: "image", message: "Must be an absolute http(s) URL" },
        { field: "socials.1.url", message: "Must be an absolute http(s) URL" },
      ],
    });
  });

  it("answers 409 for a slug in use and 403 for a public key", async () => {
    const conflict = await call("POST", LIST, LIST, { body: { name: "Zoe Two", slug: "zoe" } });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({
      error: "Slug already in use",
      message: "This slug is already used by another record of this kind in the workspace",
    });
    const forbidden = await call("POST", LIST, LIST, { key: ws.publicKey, body: { name: "X", slug: "x" } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
  });
});

describe("PATCH /v1/authors/{identifier}", () => {
  async function createAuthor(slug: string, extra: Record<string, unknown> = {}) {
    return (await call("POST", LIST, LIST, { body: { name: "Someone", slug, ...extra } })).body.author;
  }

  it("changes only the given fields: 200 {author}", async () => {
    const created = await createAuthor("someone", { bio: "Bio", role: "Role", socials: ZOE_SOCIALS });
    const res = await call("PATCH", `${LIST}/someone`, ONE, { body: { name: "Someone Else", role: null } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ author: { ...created, name: "Someone Else", role: null } });
  });

  it("replaces the whole socials list when given, and clears it with []", async () => {
    const created = await createAuthor("social", { socials: ZOE_SOCIALS });
    const replaced = await call("PATCH", `${LIST}/${created.id}`, ONE, {
      body: { socials: [{ platform: "linkedin", url: "https://linkedin.com/in/social" }] },
    });
    expect(replaced.body).toEqual({
      author: { ...created, socials: [{ platform: "linkedin", url: "https://linkedin.com/in/social" }] },
    });
    const kept = await call("PATCH", `${LIST}/social`, ONE, { body: { bio: "Now with bio" } });
    expect(kept.body.author.socials).toEqual([
      { platform: "linkedin", url: "https://linkedin.com/in/social" },
    ]);
    const cleared = await call("PATCH", `${LIST}/social`, ONE, { body: { socials: [] } });
    expect(cleared.body).toEqual({ author: { ...created, bio: "Now with bio", socials: [] } });
  });

  it("answers 400 for invalid values", async () => {
    const res = await call("PATCH", `${LIST}/adam`, ONE, {
      body: { email: "nope", socials: [{ platform: "x" }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [
        { field: "email", message: "Invalid email address" },
        { field: "socials.0.url", message: "Invalid input: expected string, received undefined" },
      ],
    });
    const slug = await call("PATCH", `${LIST}/adam`, ONE, { body: { slug: "Adam!" } });
    expect(slug.body).toEqual({
      error: "Validation failed",
      message: "Invalid author",
      details: [{ field: "slug", message: SLUG_RULE }],
    });
  });

  it("answers 409 for another author's slug, 404 for an unknown author, 403 for a public key", async () => {
    const conflict = await call("PATCH", `${LIST}/adam`, ONE, { body: { slug: "zoe" } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe("Slug already in use");
    for (const identifier of ["nobody", ids.otherAuthor]) {
      const res = await call("PATCH", `${LIST}/${identifier}`, ONE, { body: { name: "X" } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(identifier as string));
    }
    const forbidden = await call("PATCH", `${LIST}/adam`, ONE, { key: ws.publicKey, body: { name: "X" } });
    expect(forbidden.status).toBe(403);
    expect((await call("GET", `${LIST}/adam`, ONE)).body.author.name).toBe("Adam Author");
  });
});

describe("DELETE /v1/authors/{identifier}", () => {
  it("deletes an author: 200 {id}; their posts lose them", async () => {
    const f = restFixtures(app, ws.privateKey);
    const leaving = await f.author("leaving");
    await f.post({
      slug: "shared",
      categoryId: ids.news as string,
      authors: [leaving.id, ids.adam as string],
    });
    const res = await call("DELETE", `${LIST}/leaving`, ONE);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: leaving.id });
    const post = await app.request("GET", "/v1/posts/shared", { key: ws.privateKey });
    expect(post.body.post.authors).toEqual([adam()]);
    expect((await call("GET", `${LIST}/${leaving.id}`, ONE)).status).toBe(404);
  });

  it("answers 404 for an unknown author and 403 for a public key", async () => {
    const res = await call("DELETE", `${LIST}/nobody`, ONE);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound("nobody"));
    const forbidden = await call("DELETE", `${LIST}/adam`, ONE, { key: ws.publicKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
  });
});
