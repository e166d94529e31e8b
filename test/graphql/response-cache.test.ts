// GraphQL answers over HTTP are cached on the REST door's never-stale rule: keyed on the workspace's
// change-log head, so the very next query after any write reflects it; public and private answers never
// mix; mutations, errors and state that moves without an event (webhooks, the change log) are never
// served from the cache.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { day, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("GraphQL cache");
});
afterAll(() => app?.close());

async function query(query: string, key = ws.publicKey, variables?: Record<string, unknown>) {
  const res = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  return { status: res.status, body, cache: res.headers.get("x-cache") };
}

const TAGS = "{ tags(limit: 100) { items { slug name count { posts } } } }";

describe("GraphQL response cache", () => {
  it("serves a repeated query from the cache until a write, then the next query reflects the write", async () => {
    const f = restFixtures(app, ws.privateKey);
    const tag = await f.tag("gql-tag");
    expect((await query(TAGS)).cache).toBe("MISS");
    const hit = await query(TAGS);
    expect(hit.cache).toBe("HIT");
    expect(hit.body).toEqual((await query(TAGS)).body);
    await app.request("PATCH", `/v1/tags/${tag.id}`, { key: ws.privateKey, body: { name: "Renamed" } });
    const after = await query(TAGS);
    expect(after.cache).toBe("MISS");
    expect(after.body.data?.tags).toEqual({
      items: [{ slug: "gql-tag", name: "Renamed", count: { posts: 0 } }],
    });
    // Variables are part of the key.
    const one = await query("query($l: Int) { tags(limit: $l) { items { slug } } }", ws.publicKey, { l: 1 });
    const two = await query("query($l: Int) { tags(limit: $l) { items { slug } } }", ws.publicKey, { l: 2 });
    expect(one.cache).toBe("MISS");
    expect(two.cache).toBe("MISS");
  });

  it("a post's publication shows in the very next list and count query", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("gql-cat");
    const post = await f.post({ slug: "gql-post", categoryId: category.id, status: "draft" });
    const list =
      '{ posts(limit: 100) { items { slug } } category(identifier: "gql-cat") { count { posts } } }';
    await query(list);
    expect((await query(list)).cache).toBe("HIT");
    await app.request("PATCH", `/v1/posts/${post.id}`, { key: ws.privateKey, body: { status: "published" } });
    const after = await query(list);
    expect(after.body.data).toEqual({
      posts: { items: [{ slug: "gql-post" }] },
      category: { count: { posts: 1 } },
    });
  });

  it("keeps public and private answers apart", async () => {
    const drafts = "{ posts(status: ALL, limit: 100) { items { slug status } } }";
    const asPrivate = await query(drafts, ws.privateKey);
    expect(asPrivate.body.errors).toBeUndefined();
    expect((await query(drafts, ws.privateKey)).cache).toBe("HIT");
    const asPublic = await query(drafts, ws.publicKey);
    expect(asPublic.cache).toBeNull();
    expect(asPublic.body.data ?? null).toBeNull();
    expect(JSON.stringify(asPublic.body.errors)).toContain("FORBIDDEN");
  });

  it("never caches mutations, errors, the change log or webhook endpoints", async () => {
    const log = "{ events(first: 5) { edges { node { type } } } }";
    await query(log, ws.privateKey);
    expect((await query(log, ws.privateKey)).cache).toBeNull();
    const hooks = "{ webhookEndpoints { id } }";
    await query(hooks, ws.privateKey);
    expect((await query(hooks, ws.privateKey)).cache).toBeNull();
    const missing = '{ post(identifier: "nope") { id } }';
    await query(missing);
    expect((await query(missing)).cache).toBeNull();
    const create = 'mutation { createTag(input: { name: "M", slug: "m-tag" }) { slug } }';
    expect((await query(create, ws.privateKey)).body.data).toEqual({ createTag: { slug: "m-tag" } });
    const again = await query(create, ws.privateKey);
    expect(again.cache).toBeNull();
    expect(JSON.stringify(again.body.errors)).toContain("CONFLICT");
  });
});

describe("GraphQL answers depend on what they hold (issue 38)", () => {
  let own: TestWorkspace;
  const ask = (text: string, key?: string) => query(text, key ?? own.publicKey);
  const patch = async (path: string, body: Record<string, unknown>) =>
    expect((await app.request("PATCH", path, { key: own.privateKey, body })).status).toBe(200);
  // No `id` selected anywhere: the records are collected as the answer runs, not read from it.
  const ONE = `{ post(identifier: "held") { title category { name } tags { name } authors { name } fields } }`;
  const PAGE =
    "{ posts(limit: 2, order: DESC) { items { slug title tags { slug } } pagination { totalItems } } }";
  const SEARCH = '{ posts(query: "held", limit: 2) { items { slug } } }';
  let ids: { held: string; other: string; older: string; category: string; tag: string; otherTag: string };

  beforeAll(async () => {
    own = await app.workspace("GraphQL dependencies");
    const f = restFixtures(app, own.privateKey);
    const category = await f.category("deps-cat");
    const tag = await f.tag("deps-tag");
    const otherTag = await f.tag("deps-other-tag");
    const author = await f.author("deps-author");
    const base = { categoryId: category.id, authors: [author.id] };
    const older = await f.post({ ...base, slug: "older", publishedAt: day(1) });
    const other = await f.post({ ...base, slug: "other", publishedAt: day(2), tags: [otherTag.id] });
    const held = await f.post({ ...base, slug: "held", publishedAt: day(3), tags: [tag.id] });
    ids = {
      held: held.id,
      other: other.id,
      older: older.id,
      category: category.id,
      tag: tag.id,
      otherTag: otherTag.id,
    };
  });

  /** Asks each document twice (a miss, then a hit), runs `write`, and gives each document's next X-Cache. */
  async function afterWrite(documents: string[], write: () => Promise<void>) {
    for (const document of documents) {
      await ask(document);
      expect((await ask(document)).cache).toBe("HIT");
    }
    await write();
    return Promise.all(documents.map(async (document) => (await ask(document)).cache));
  }

  it("an edit of a post the answer does not hold leaves it; a search and a count do not survive it", async () => {
    const COUNT = '{ category(identifier: "deps-cat") { name count { posts } } }';
    const outcome = await afterWrite([ONE, PAGE, SEARCH, COUNT], () =>
      patch(`/v1/posts/${ids.older}`, { title: "Older, edited" }),
    );
    expect(outcome).toEqual(["HIT", "HIT", "MISS", "MISS"]);
  });

  it("a draft save leaves every public answer", async () => {
    const draft = await restFixtures(app, own.privateKey).post({
      categoryId: ids.category,
      slug: "deps-draft",
      status: "draft",
    });
    const outcome = await afterWrite([ONE, PAGE, SEARCH], () =>
      patch(`/v1/posts/${draft.id}`, { title: "Typing" }),
    );
    expect(outcome).toEqual(["HIT", "HIT", "HIT"]);
  });

  it("an edit of a post it holds, of its category, of its tags, changes it at once", async () => {
    expect(
      await afterWrite([ONE, PAGE], () => patch(`/v1/posts/${ids.held}`, { title: "Held, edited" })),
    ).toEqual(["MISS", "MISS"]);
    expect((await ask(ONE)).body.data?.post).toMatchObject({ title: "Held, edited" });
    expect(
      await afterWrite([ONE, PAGE], () => patch(`/v1/categories/${ids.category}`, { name: "Renamed" })),
    ).toEqual(["MISS", "MISS"]);
    expect((await ask(ONE)).body.data?.post).toMatchObject({ category: { name: "Renamed" } });
    expect(await afterWrite([ONE], () => patch(`/v1/tags/${ids.tag}`, { name: "Retitled" }))).toEqual([
      "MISS",
    ]);
    expect((await ask(ONE)).body.data?.post).toMatchObject({ tags: [{ name: "Retitled" }] });
    // The other post's tag is on the page (slug selected) but not in the single post.
    expect(
      await afterWrite([ONE, PAGE], () => patch(`/v1/tags/${ids.otherTag}`, { slug: "deps-moved" })),
    ).toEqual(["HIT", "MISS"]);
  });

  it("a post published into the list changes the page, not the single post", async () => {
    const outcome = await afterWrite([ONE, PAGE], async () => {
      await restFixtures(app, own.privateKey).post({
        categoryId: ids.category,
        slug: "newest",
        publishedAt: day(9),
      });
    });
    expect(outcome).toEqual(["HIT", "MISS"]);
    expect((await ask(PAGE)).body.data?.posts).toMatchObject({
      items: [{ slug: "newest" }, { slug: "held" }],
      pagination: { totalItems: 4 },
    });
  });
});

/** A GraphQL GET request: the parameters in the URL, as browsers, CDNs and APQ clients send them. */
async function get(
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  key = ws.publicKey,
) {
  const search = new URLSearchParams(
    Object.entries(params).map(([name, value]) => [
      name,
      typeof value === "string" ? value : JSON.stringify(value),
    ]),
  );
  const res = await fetch(`${app.url}/graphql?${search}`, {
    headers: { authorization: key, accept: "application/graphql-response+json", ...headers },
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: text
      ? (JSON.parse(text) as {
          data?: Record<string, unknown>;
          errors?: { message: string; extensions?: { code?: string } }[];
        })
      : null,
    etag: res.headers.get("etag"),
    cacheControl: res.headers.get("cache-control"),
    cache: res.headers.get("x-cache"),
  };
}

describe("GraphQL GET: validators and 304", () => {
  const CATEGORIES = "{ categories(limit: 100) { items { slug name } } }";

  it("answers If-None-Match with 304 (also with fetch's Cache-Control: no-cache), and with a new ETag after a write", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("etag-cat");
    const first = await get({ query: CATEGORIES });
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^"[\w-]+"$/);
    expect(first.cacheControl).toBe("public, no-cache");
    const hit = await get({ query: CATEGORIES });
    expect(hit.cache).toBe("HIT");
    expect(hit.etag).toBe(first.etag);

    const revalidated = await get(
      { query: CATEGORIES },
      { "if-none-match": first.etag ?? "", "cache-control": "no-cache" },
    );
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
    expect(revalidated.etag).toBe(first.etag);

    await app.request("PATCH", `/v1/categories/${category.id}`, {
      key: ws.privateKey,
      body: { name: "Renamed" },
    });
    const after = await get({ query: CATEGORIES }, { "if-none-match": first.etag ?? "" });
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(first.etag);
    expect(JSON.stringify(after.body?.data)).toContain("Renamed");
  });

  it("private-key answers are private; POST answers carry no validators", async () => {
    const asPrivate = await get({ query: CATEGORIES }, {}, ws.privateKey);
    expect(asPrivate.status).toBe(200);
    expect(asPrivate.cacheControl).toBe("private, no-cache");
    const posted = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.publicKey, "content-type": "application/json" },
      body: JSON.stringify({ query: CATEGORIES }),
    });
    await posted.arrayBuffer();
    expect(posted.headers.get("etag")).toBeNull();
  });
});

describe("persisted queries (APQ)", () => {
  const document = "query PersistedTags { tags(limit: 5) { items { slug } } }";
  const sha256Hash = createHash("sha256").update(document).digest("hex");
  const persisted = { persistedQuery: { version: 1, sha256Hash } };

  it("an unknown hash is 404 PersistedQueryNotFound; document + hash registers it; then the hash alone runs it, cacheable by GET", async () => {
    const unknown = await get({ extensions: persisted });
    expect(unknown.status).toBe(404);
    expect(unknown.body?.errors?.[0]).toMatchObject({
      message: "PersistedQueryNotFound",
      extensions: { code: "PERSISTED_QUERY_NOT_FOUND" },
    });

    const registered = await get({ query: document, extensions: persisted });
    expect(registered.status).toBe(200);
    expect(registered.body?.errors).toBeUndefined();

    const byHash = await get({ extensions: persisted });
    expect(byHash.status).toBe(200);
    expect(byHash.body).toEqual(registered.body);
    expect(byHash.etag).toBeTruthy();
    expect((await get({ extensions: persisted }, { "if-none-match": byHash.etag ?? "" })).status).toBe(304);
  });

  it("refuses a hash that is not the document's, and a request with neither document nor hash", async () => {
    const wrong = await get({
      query: "{ tags { items { slug } } }",
      extensions: { persistedQuery: { version: 1, sha256Hash: "0".repeat(64) } },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body?.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
    const empty = await get({ variables: {} });
    expect(empty.status).toBe(400);
    expect(empty.body?.errors?.[0]?.message).toBe("Must provide query string.");
  });
});
