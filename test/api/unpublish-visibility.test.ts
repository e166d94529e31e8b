// Scheduled unpublishing as the public rule (issue 56): a post — or one translation — is public while
// its status is `published`, its publishedAt has come and its `unpublishAt` is unset or still ahead
// (src/content/post-visibility.ts). From the instant unpublishAt passes it is public to nobody, before
// the scheduler makes it a draft (this app runs no scheduler): lists and their totalItems, single reads,
// GraphQL, the change feed and taxonomy counts; and no cached answer that shows it is served from then on
// (the answer's bound: the earliest unpublishAt it shows). Reads show `unpublishAt` when one is set, and
// only then (a post without one answers byte for byte as before); a post set to draft by hand drops it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ env: { RATE_LIMIT_AUTHENTICATED: "100000" } });
});
afterAll(async () => app?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `at` has passed (by a few milliseconds), no longer. */
const until = async (at: string) => {
  const wait = Date.parse(at) - Date.now() + 20;
  if (wait > 0) await sleep(wait);
};

const LIST_QUERY = `{ posts(limit: 50) { items { slug } pagination { totalItems } } }`;

/** GraphQL through the HTTP door (its cache included; the server process offers nothing else). */
async function graphqlHttp(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await app.request("POST", "/graphql", {
    key,
    body: { query, ...(variables ? { variables } : {}) },
    headers: { accept: "application/json" },
  });
  return { body: res.body, cache: res.headers.get("x-cache") };
}

async function rest(key: string, path: string) {
  const res = await app.request("GET", path, { key });
  return { status: res.status, body: res.body, cache: res.headers.get("x-cache") };
}

describe("a post past its unpublishAt, before the scheduler runs", () => {
  it("is public to nobody, and no cached answer showing it is served (REST, GraphQL, changes, counts)", async () => {
    const ws = await app.workspace("Unpublish visibility");
    const make = restFixtures(app, ws.privateKey);
    await app.request("POST", "/v1/locales", { key: ws.privateKey, body: { code: "de" } });
    const news = await make.category("news");
    const topic = await make.tag("topic");
    const fading = await make.post({ slug: "fading", categoryId: news.id, tags: [topic.id] });
    const staying = await make.post({ slug: "staying", categoryId: news.id, tags: [topic.id] });
    // A post whose German translation goes at the same moment; its default locale stays.
    const german = await make.post({ slug: "german", categoryId: news.id });
    // Due once everything else is set up, so a slow machine still reads (and caches) before it.
    const due = new Date(Date.now() + 6_000).toISOString();
    const scheduled = await app.request("PATCH", `/v1/posts/${fading.id}`, {
      key: ws.privateKey,
      body: { unpublishAt: due },
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    const de = await app.request("PATCH", `/v1/posts/${german.id}?locale=de`, {
      key: ws.privateKey,
      body: {
        title: "Deutsch",
        slug: "deutsch",
        description: "d",
        content: "<p>d</p>",
        status: "published",
        unpublishAt: due,
      },
    });
    expect(de.status, JSON.stringify(de.body)).toBe(200);

    // Reads show unpublishAt where one is set, and only there.
    const single = await rest(ws.publicKey, "/v1/posts/fading");
    expect(single.status).toBe(200);
    expect(single.body.post.unpublishAt).toBe(due);
    const plain = await rest(ws.publicKey, "/v1/posts/staying");
    expect("unpublishAt" in plain.body.post).toBe(false);
    const germanDefault = await rest(ws.publicKey, "/v1/posts/german");
    expect("unpublishAt" in germanDefault.body.post).toBe(false);
    const deRead = await rest(ws.publicKey, "/v1/posts/deutsch?locale=de&fallback=none");
    expect(deRead.status).toBe(200);
    expect(deRead.body.post.unpublishAt).toBe(due);
    const gqlFields = (
      await graphqlHttp(
        ws.publicKey,
        `{ a: post(identifier: "fading") { unpublishAt } b: post(identifier: "staying") { unpublishAt }
         c: post(identifier: "deutsch", locale: "de", fallback: "none") { unpublishAt } }`,
      )
    ).body;
    expect(gqlFields.errors).toBeUndefined();
    expect(gqlFields.data).toEqual({
      a: { unpublishAt: due },
      b: { unpublishAt: null },
      c: { unpublishAt: due },
    });

    // Before: public, and the answers are cached (the second read of each a hit).
    const reads = [
      "/v1/posts",
      "/v1/posts/fading",
      "/v1/posts?locale=de&fallback=none",
      "/v1/posts/deutsch?locale=de&fallback=none",
    ];
    for (const path of reads) {
      const first = await rest(ws.publicKey, path);
      expect(first.status, path).toBe(200);
      expect((await rest(ws.publicKey, path)).cache, path).toBe("HIT");
    }
    expect((await rest(ws.publicKey, "/v1/posts")).body.pagination.totalItems).toBe(3);
    expect((await rest(ws.publicKey, "/v1/tags/topic")).body.tag.count.posts).toBe(2);
    expect((await rest(ws.publicKey, "/v1/categories/news")).body.category.count.posts).toBe(3);
    await graphqlHttp(ws.publicKey, LIST_QUERY);
    const gqlBefore = await graphqlHttp(ws.publicKey, LIST_QUERY);
    expect(gqlBefore.cache).toBe("HIT");
    expect(gqlBefore.body.data.posts.pagination.totalItems).toBe(3);
    // A document that does not select unpublishAt is bounded by it all the same.
    const gqlSingle = `{ post(identifier: "fading") { slug } }`;
    await graphqlHttp(ws.publicKey, gqlSingle);
    expect((await graphqlHttp(ws.publicKey, gqlSingle)).cache).toBe("HIT");
    expect(Date.now()).toBeLessThan(Date.parse(due));

    await until(due);

    // REST: gone from the list and its count, a 404 by slug, for the default locale and for `de`.
    const list = await rest(ws.publicKey, "/v1/posts");
    expect(list.cache).not.toBe("HIT");
    expect(list.body.posts.map((post: { slug: string }) => post.slug).sort()).toEqual(["german", "staying"]);
    expect(list.body.pagination.totalItems).toBe(2);
    expect((await rest(ws.publicKey, "/v1/posts/fading")).status).toBe(404);
    expect((await rest(ws.publicKey, `/v1/posts/${fading.id}`)).status).toBe(404);
    const deList = await rest(ws.publicKey, "/v1/posts?locale=de&fallback=none");
    expect(deList.body.posts).toEqual([]);
    expect(deList.body.pagination.totalItems).toBe(0);
    expect((await rest(ws.publicKey, "/v1/posts/deutsch?locale=de&fallback=none")).status).toBe(404);
    // With the fallback, the German read is served the default locale's post (still public).
    const fallback = await rest(ws.publicKey, `/v1/posts/${german.id}?locale=de&fallback=en`);
    expect(fallback.status).toBe(200);
    expect(fallback.body.post.locale).toBe("en");
    expect(fallback.body.post.availableLocales).toEqual(["en"]);
    // Neither `published` nor `scheduled` for a private key; `all` still shows it.
    const privatePublished = await rest(ws.privateKey, "/v1/posts?status=published");
    expect(privatePublished.body.pagination.totalItems).toBe(2);
    expect((await rest(ws.privateKey, "/v1/posts?status=scheduled")).body.pagination.totalItems).toBe(0);
    expect((await rest(ws.privateKey, "/v1/posts?status=all")).body.pagination.totalItems).toBe(3);
    expect((await rest(ws.privateKey, "/v1/posts/fading?status=all")).status).toBe(200);

    // Counts, as computed now (a cached taxonomy answer holds no post: it moves on with the scheduler's
    // event at the due time, docs/api.md).
    const counts = (
      await graphqlHttp(
        ws.publicKey,
        `{ tag(identifier: "topic") { count { posts } } category(identifier: "news") { count { posts } } }`,
      )
    ).body;
    expect(counts.data).toEqual({ tag: { count: { posts: 1 } }, category: { count: { posts: 2 } } });

    // GraphQL (through the door and its cache).
    const gqlAfter = await graphqlHttp(ws.publicKey, LIST_QUERY);
    expect(gqlAfter.cache).not.toBe("HIT");
    expect(gqlAfter.body.data.posts.pagination.totalItems).toBe(2);
    expect(gqlAfter.body.data.posts.items.map((post: { slug: string }) => post.slug).sort()).toEqual([
      "german",
      "staying",
    ]);
    const gqlGone = await graphqlHttp(ws.publicKey, gqlSingle);
    expect(gqlGone.cache).not.toBe("HIT");
    expect(gqlGone.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const gqlDe = (
      await graphqlHttp(ws.publicKey, `{ posts(locale: "de", fallback: "none") { items { slug } } }`)
    ).body;
    expect(gqlDe.data?.posts.items).toEqual([]);

    // The change feed, read from its start: neither the post nor the German translation.
    const feed = await rest(ws.publicKey, "/v1/changes?limit=100");
    const postIds = (feed.body.changes as { type: string; id: string; op: string }[])
      .filter((entry) => entry.type === "post" && entry.op === "upsert")
      .map((entry) => entry.id)
      .sort();
    expect(postIds).toEqual([german.id, staying.id].sort());
    const deFeed = await rest(ws.publicKey, "/v1/changes?limit=100&locale=de");
    expect(
      (deFeed.body.changes as { type: string; op: string }[]).filter(
        (entry) => entry.type === "post" && entry.op === "upsert",
      ),
    ).toEqual([]);
  }, 30_000);
});

describe("unpublishAt in writes", () => {
  it("a post or translation set to draft by hand drops its unpublishAt", async () => {
    const ws = await app.workspace("Unpublish drafts");
    const make = restFixtures(app, ws.privateKey);
    await app.request("POST", "/v1/locales", { key: ws.privateKey, body: { code: "de" } });
    const news = await make.category("news");
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const post = await make.post({ slug: "later", categoryId: news.id, unpublishAt: later });
    const de = await app.request("PATCH", `/v1/posts/${post.id}?locale=de`, {
      key: ws.privateKey,
      body: {
        title: "Später",
        slug: "spaeter",
        description: "d",
        content: "<p>d</p>",
        status: "published",
        unpublishAt: later,
      },
    });
    expect(de.status, JSON.stringify(de.body)).toBe(200);
    const read = async (query: string) =>
      (await app.request("GET", `/v1/posts/${post.id}?status=all${query}`, { key: ws.privateKey })).body.post;
    expect((await read("")).unpublishAt).toBe(later);
    expect((await read("&locale=de&fallback=none")).unpublishAt).toBe(later);

    const drafted = await app.request("PATCH", `/v1/posts/${post.id}?locale=de`, {
      key: ws.privateKey,
      body: { status: "draft" },
    });
    expect(drafted.status).toBe(200);
    expect("unpublishAt" in (await read("&locale=de&fallback=none"))).toBe(false);
    expect((await read("")).unpublishAt).toBe(later);
    const draftedPost = (
      await graphqlHttp(
        ws.privateKey,
        `mutation($id: String!) { updatePost(identifier: $id, input: { status: DRAFT }) { status unpublishAt } }`,
        { id: post.id },
      )
    ).body;
    expect(draftedPost.errors).toBeUndefined();
    expect(draftedPost.data?.updatePost).toEqual({ status: "DRAFT", unpublishAt: null });
    expect("unpublishAt" in (await read(""))).toBe(false);
  });
});
