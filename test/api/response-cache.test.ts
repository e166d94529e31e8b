// The REST response cache is never stale: after every kind of write, the very next read of every
// affected answer reflects it; public and private answers never mix; every GET answer carries a strong
// ETag, and a client holding it gets 304 — also with the `Cache-Control: no-cache` that fetch() adds to
// conditional requests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Cached");
});
afterAll(() => app?.close());

async function read(path: string, key = ws.publicKey) {
  const res = await app.request("GET", path, { key });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return { body: res.body, cache: res.headers.get("x-cache"), etag: res.headers.get("etag") };
}

/** Reads twice (the second from the cache), runs the write, and returns the very next read. */
async function afterWrite(path: string, write: () => Promise<unknown>, key = ws.publicKey) {
  await read(path, key);
  const warm = await read(path, key);
  expect(warm.cache).toBe("HIT");
  await write();
  const next = await read(path, key);
  expect(next.cache).toBe("MISS");
  return next.body;
}

function send(method: string, path: string, body?: unknown) {
  return app.request(method, path, { key: ws.privateKey, body }).then((res) => {
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  });
}

describe("the very next read after a write reflects it", () => {
  it("posts: publish, edit, unpublish and delete show in lists, single reads and counts", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("cache-news");
    const post = await f.post({ slug: "cached-post", categoryId: category.id, status: "draft" });

    let list = await afterWrite("/v1/posts", () =>
      send("PATCH", `/v1/posts/${post.id}`, { status: "published" }),
    );
    expect(list.posts.map((p: { slug: string }) => p.slug)).toContain("cached-post");
    let count = await afterWrite(`/v1/categories/${category.id}`, () =>
      send("PATCH", `/v1/posts/${post.id}`, { title: "Renamed" }),
    );
    expect(count.category.count.posts).toBe(1);
    const single = await afterWrite("/v1/posts/cached-post", () =>
      send("PATCH", `/v1/posts/${post.id}`, { title: "Renamed again" }),
    );
    expect(single.post.title).toBe("Renamed again");
    list = await afterWrite("/v1/posts", () => send("PATCH", `/v1/posts/${post.id}`, { status: "draft" }));
    expect(list.posts.map((p: { slug: string }) => p.slug)).not.toContain("cached-post");
    count = await afterWrite(`/v1/categories/${category.id}`, () =>
      send("PATCH", `/v1/posts/${post.id}`, { status: "published" }),
    );
    expect(count.category.count.posts).toBe(1);
    list = await afterWrite("/v1/posts?format=markdown", () => send("DELETE", `/v1/posts/${post.id}`));
    expect(list.posts.map((p: { slug: string }) => p.slug)).not.toContain("cached-post");
  });

  it("taxonomies and authors: a rename shows inside the posts that carry them; a delete removes them", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("tax-cat");
    const tag = await f.tag("tax-tag");
    const author = await f.author("tax-author");
    await f.post({ slug: "carrier", categoryId: category.id, tags: [tag.id], authors: [author.id] });
    let post = await afterWrite("/v1/posts/carrier", () =>
      send("PATCH", `/v1/tags/${tag.id}`, { name: "Renamed tag" }),
    );
    expect(post.post.tags.map((t: { name: string }) => t.name)).toEqual(["Renamed tag"]);
    post = await afterWrite("/v1/posts/carrier", () =>
      send("PATCH", `/v1/categories/${category.id}`, { name: "New cat" }),
    );
    expect(post.post.category.name).toBe("New cat");
    post = await afterWrite("/v1/posts/carrier", () =>
      send("PATCH", `/v1/authors/${author.id}`, { name: "New name" }),
    );
    expect(post.post.authors.map((a: { name: string }) => a.name)).toEqual(["New name"]);
    post = await afterWrite("/v1/posts/carrier", () => send("DELETE", `/v1/tags/${tag.id}`));
    expect(post.post.tags).toEqual([]);
    const empty = await f.category("empty-cat");
    const categories = await afterWrite("/v1/categories", () => send("DELETE", `/v1/categories/${empty.id}`));
    expect(categories.categories.map((c: { slug: string }) => c.slug)).not.toContain("empty-cat");
  });

  it("field definitions and media", async () => {
    const fields = await afterWrite(
      "/v1/fields",
      () => send("POST", "/v1/fields", { key: "mood", name: "Mood", type: "text" }),
      ws.privateKey,
    );
    expect(fields.fields.map((f: { key: string }) => f.key)).toContain("mood");
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(await makeImage("png"))], { type: "image/png" }), "c.png");
    const uploaded = await fetch(`${app.url}/v1/media/upload`, {
      method: "POST",
      headers: { authorization: ws.privateKey },
      body: form,
    });
    const mediaId = ((await uploaded.json()) as { media: { id: string } }).media.id;
    const media = await afterWrite("/v1/media", () => send("DELETE", `/v1/media/${mediaId}`), ws.privateKey);
    expect(media.media.map((m: { id: string }) => m.id)).not.toContain(mediaId);
  });

  it("does not carry one workspace's answers to another", async () => {
    const other = await app.workspace("Other cached");
    await restFixtures(app, other.privateKey).category("only-other");
    const mine = await read("/v1/categories");
    const theirs = await read("/v1/categories", other.publicKey);
    expect(mine.body.categories.map((c: { slug: string }) => c.slug)).not.toContain("only-other");
    expect(theirs.body.categories.map((c: { slug: string }) => c.slug)).toEqual(["only-other"]);
  });
});

describe("public and private answers never mix", () => {
  it("a private key's cached answer with drafts is never served to a public key", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("mix");
    await f.post({ slug: "secret-draft", categoryId: category.id, status: "draft" });
    const path = `/v1/posts?categories=mix&status=published`;
    const asPrivate = await read(`${path}`, ws.privateKey);
    await read(path, ws.privateKey);
    const asPublic = await read(path, ws.publicKey);
    expect(asPublic.cache).toBe("MISS");
    expect(asPublic.body).toEqual(asPrivate.body);
    const allDrafts = await read("/v1/posts?status=all&categories=mix", ws.privateKey);
    expect(allDrafts.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["secret-draft"]);
    const refused = await app.request("GET", "/v1/posts?status=all&categories=mix", { key: ws.publicKey });
    expect(refused.status).toBe(403);
  });
});

describe("ETags and 304", () => {
  it("answers 304 to a client holding the ETag (fetch's no-cache included), and a new ETag after a write", async () => {
    const tag = await restFixtures(app, ws.privateKey).tag("etagged");
    const first = await fetch(`${app.url}/v1/tags/etagged`, { headers: { authorization: ws.publicKey } });
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(first.headers.get("cache-control")).toBe("public, no-cache");
    expect(first.headers.get("vary")).toContain("Authorization");
    const again = await fetch(`${app.url}/v1/tags/etagged`, {
      headers: { authorization: ws.publicKey, "if-none-match": etag as string, "cache-control": "no-cache" },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    await send("PATCH", `/v1/tags/${tag.id}`, { name: "Changed" });
    const changed = await fetch(`${app.url}/v1/tags/etagged`, {
      headers: { authorization: ws.publicKey, "if-none-match": etag as string },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(((await changed.json()) as { tag: { name: string } }).tag.name).toBe("Changed");
  });

  it("gives uncached GETs (webhooks) ETags too, and private answers `private, no-cache`", async () => {
    const res = await fetch(`${app.url}/v1/webhooks`, { headers: { authorization: ws.privateKey } });
    const etag = res.headers.get("etag") as string;
    expect(res.headers.get("x-cache")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("private, no-cache");
    const again = await fetch(`${app.url}/v1/webhooks`, {
      headers: { authorization: ws.privateKey, "if-none-match": etag },
    });
    expect(again.status).toBe(304);
  });
});

describe("compression and surrogate keys", () => {
  async function raw(path: string, headers: Record<string, string>) {
    const { request } = await import("node:http");
    return new Promise<{
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
    }>((resolve, reject) => {
      const req = request(
        `${app.url}${path}`,
        { headers: { authorization: ws.publicKey, ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  it("sends bodies over 1 KB as brotli or gzip (kept with the cached answer), smaller ones as they are", async () => {
    const { brotliDecompressSync, gunzipSync } = await import("node:zlib");
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("zipped");
    for (const slug of ["z1", "z2", "z3"]) await f.post({ slug, categoryId: category.id });
    const plain = await raw("/v1/posts?categories=zipped", {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const br = await raw("/v1/posts?categories=zipped", { "accept-encoding": "gzip, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Authorization, Accept-Encoding");
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
    const gzip = await raw("/v1/posts?categories=zipped", { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    const revalidated = await raw("/v1/posts?categories=zipped", {
      "accept-encoding": "br",
      "if-none-match": String(br.headers.etag),
    });
    expect(revalidated.status).toBe(304);
    const small = await raw("/v1/tags?limit=1", { "accept-encoding": "br" });
    expect(small.headers["content-encoding"]).toBeUndefined();
  });

  it("tags answers with the workspace, the resource kind and every record id they hold", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("tagged-cat");
    const tag = await f.tag("tagged-tag");
    const post = await f.post({ slug: "tagged-post", categoryId: category.id, tags: [tag.id] });
    const res = await raw("/v1/posts/tagged-post", {});
    const keys = String(res.headers["surrogate-key"]).split(" ");
    expect(keys.slice(0, 2)).toEqual([`ws-${ws.id}`, "posts"]);
    expect(keys).toEqual(expect.arrayContaining([post.id, category.id, tag.id]));
    // One form by default (CACHE_TAG_HEADER=surrogate-key): the other would repeat every id.
    expect(res.headers["cache-tag"]).toBeUndefined();
  });
});
