// A post read without `locale` (issue 56): in a workspace of one locale its body is as before locales,
// without `locale`, `availableLocales` or `alternates`; in a workspace of several it is served in the
// default locale and says so, with the translations the key may be told of (a public key: published
// ones only), in REST and GraphQL, one post and lists. Adding or removing a locale changes the cached
// answers. And a shared cache (CACHE_S_MAXAGE) is never told to keep an answer past the earliest
// `unpublishAt` it shows. Over HTTP only, so it also runs against the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    env: { CACHE_S_MAXAGE: "300", CACHE_STALE_WHILE_REVALIDATE: "60", RATE_LIMIT_AUTHENTICATED: "100000" },
  });
});
afterAll(async () => app?.close());

const FACTS = ["locale", "availableLocales", "alternates"];

async function get(ws: TestWorkspace, path: string, key = ws.privateKey) {
  const res = await app.request("GET", path, { key });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  expectMatchesOpenApi(res, "get", path.startsWith("/v1/posts/") ? "/v1/posts/{identifier}" : "/v1/posts");
  return { body: res.body as Body, cache: res.headers.get("x-cache"), headers: res.headers };
}

async function graphql(key: string, query: string) {
  const res = await app.request("POST", "/graphql", {
    key,
    body: { query },
    headers: { accept: "application/json" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect((res.body as Body).errors).toBeUndefined();
  return (res.body as { data: Body }).data;
}

const GRAPHQL_FACTS = `locale availableLocales alternates { locale slug }`;

describe("a post read without locale", () => {
  it("shows no locale facts in a workspace of one locale (REST bodies as before, GraphQL nulls)", async () => {
    const ws = await app.workspace("One locale");
    const make = restFixtures(app, ws.privateKey);
    await make.post({ slug: "solo", categoryId: (await make.category("news")).id });
    const one = (await get(ws, "/v1/posts/solo")).body.post as Body;
    const listed = ((await get(ws, "/v1/posts")).body.posts as Body[])[0] as Body;
    for (const post of [one, listed]) for (const key of FACTS) expect(post).not.toHaveProperty(key);
    const data = await graphql(
      ws.publicKey,
      `{ post(identifier: "solo") { ${GRAPHQL_FACTS} } posts { items { ${GRAPHQL_FACTS} } } }`,
    );
    const nulls = { locale: null, availableLocales: null, alternates: null };
    expect(data).toEqual({ post: nulls, posts: { items: [nulls] } });
  });

  it("is served in the default locale in a workspace of several, and says so with the alternates a key may see", async () => {
    const ws = await app.workspace("Several locales");
    const make = restFixtures(app, ws.privateKey);
    const post = await make.post({ slug: "hello", categoryId: (await make.category("news")).id });
    // Read (and cached) while the workspace has one locale; a second locale changes these answers.
    expect((await get(ws, "/v1/posts/hello")).body.post).not.toHaveProperty("locale");
    expect((await get(ws, "/v1/posts/hello", ws.publicKey)).body.post).not.toHaveProperty("locale");
    expect((await get(ws, "/v1/posts", ws.publicKey)).body.posts).toEqual([
      expect.not.objectContaining({ locale: expect.anything() }),
    ]);
    for (const code of ["de", "fr"]) {
      const res = await app.request("POST", "/v1/locales", { key: ws.privateKey, body: { code } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const translate = async (locale: string, slug: string, status: string) => {
      const res = await app.request("PATCH", `/v1/posts/${post.id}?locale=${locale}`, {
        key: ws.privateKey,
        body: { title: slug, slug, description: slug, content: `<p>${slug}</p>`, status },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await translate("de", "hallo", "published");
    await translate("fr", "bonjour", "draft");
    const everything = {
      locale: "en",
      availableLocales: ["en", "de", "fr"],
      alternates: [
        { locale: "en", slug: "hello" },
        { locale: "de", slug: "hallo" },
        { locale: "fr", slug: "bonjour" },
      ],
    };
    const published = {
      locale: "en",
      availableLocales: ["en", "de"],
      alternates: [
        { locale: "en", slug: "hello" },
        { locale: "de", slug: "hallo" },
      ],
    };
    expect((await get(ws, "/v1/posts/hello")).body.post).toMatchObject(everything);
    expect((await get(ws, "/v1/posts/hello", ws.publicKey)).body.post).toMatchObject(published);
    expect(((await get(ws, "/v1/posts", ws.publicKey)).body.posts as Body[])[0]).toMatchObject(published);
    // The answers are cached as they are; publishing the French translation changes them.
    expect((await get(ws, "/v1/posts/hello", ws.publicKey)).cache).toBe("HIT");
    await translate("fr", "bonjour", "published");
    expect((await get(ws, "/v1/posts/hello", ws.publicKey)).body.post).toMatchObject(everything);
    expect(((await get(ws, "/v1/posts", ws.publicKey)).body.posts as Body[])[0]).toMatchObject(everything);
    const data = await graphql(
      ws.publicKey,
      `{ post(identifier: "hello") { ${GRAPHQL_FACTS} } posts { items { ${GRAPHQL_FACTS} } }
         postsConnection(first: 5) { edges { node { ${GRAPHQL_FACTS} } } } }`,
    );
    expect(data).toEqual({
      post: everything,
      posts: { items: [everything] },
      postsConnection: { edges: [{ node: everything }] },
    });
    // Back to one locale (the translations go with theirs): the bodies are as before again.
    for (const code of ["de", "fr"]) {
      const res = await app.request("DELETE", `/v1/locales/${code}?force=true`, { key: ws.privateKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await get(ws, "/v1/posts/hello", ws.publicKey)).body.post).not.toHaveProperty("locale");
    expect(((await get(ws, "/v1/posts", ws.publicKey)).body.posts as Body[])[0]).not.toHaveProperty(
      "alternates",
    );
  });
});

describe("a shared cache's lifetime (CACHE_S_MAXAGE) and a scheduled unpublish", () => {
  it("is cut to the seconds left before the earliest unpublishAt an answer shows, without stale-while-revalidate", async () => {
    const ws = await app.workspace("Bounded lifetime");
    const make = restFixtures(app, ws.privateKey);
    const categoryId = (await make.category("news")).id;
    await make.post({ slug: "lasting", categoryId });
    const fading = await make.post({ slug: "fading", categoryId });
    const unbounded = (await get(ws, "/v1/posts/lasting", ws.publicKey)).headers.get("cache-control");
    expect(unbounded).toBe("public, max-age=0, s-maxage=300, stale-while-revalidate=60");
    const at = new Date(Date.now() + 120_000).toISOString();
    const res = await app.request("PATCH", `/v1/posts/${fading.id}`, {
      key: ws.privateKey,
      body: { unpublishAt: at },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const path of ["/v1/posts/fading", "/v1/posts"]) {
      // Computed, then served from the cache: both tell the time left, not the configured 300 s.
      for (const expected of ["MISS", "HIT"]) {
        const read = await get(ws, path, ws.publicKey);
        expect(read.cache, path).toBe(expected);
        const control = read.headers.get("cache-control") ?? "";
        const left = Number(/s-maxage=(\d+)/.exec(control)?.[1]);
        expect(control, path).toMatch(/^public, max-age=0, s-maxage=\d+$/);
        expect(left, path).toBeLessThanOrEqual(120);
        expect(left, path).toBeGreaterThan(60);
      }
    }
    // A post that shows no unpublish keeps the configured lifetime.
    expect((await get(ws, "/v1/posts/lasting", ws.publicKey)).headers.get("cache-control")).toBe(unbounded);
  });
});
