// The change feed's guarantees beyond the mirror (changes.test.ts): a page holds at most `limit`
// entries whatever one event implies (a rename reaching every post of a category, a post with many
// tags); a public key learns only of records it could have read (a tombstone only for a post that was
// public, with a slug only the one it was public under); and the cursors a key holds reveal nothing
// of other workspaces' writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneEvents } from "../../src/content/changes/event-retention.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

type Entry =
  | { op: "upsert"; type: string; id: string; data: Record<string, unknown> }
  | { op: "delete"; type: string; id: string; slug: string | null; removedAt: string };

interface Read {
  pages: Entry[][];
  cursor: string;
}

/** Reads the feed from `cursor` to its end, page by page. */
async function readToEnd(key: string, cursor: string | null, limit: number, types = ""): Promise<Read> {
  const pages: Entry[][] = [];
  let at = cursor;
  for (let turn = 0; turn < 5_000; turn++) {
    const query = `limit=${limit}${at ? `&since=${at}` : ""}${types}`;
    const res = await app.request("GET", `/v1/changes?${query}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body.changes);
    at = res.body.nextCursor;
    if (!res.body.hasMore) return { pages, cursor: at as string };
  }
  throw new Error("the feed never ended");
}

const keysOf = (entries: Entry[]) => entries.map((entry) => `${entry.op}:${entry.type}:${entry.id}`);

describe("a page holds at most `limit` entries", () => {
  it("a category rename reaching every post of it pages by `limit`, each post once", async () => {
    const ws = await app.workspace("Feed bound rename");
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("crowded");
    const published: string[] = [];
    for (let n = 0; n < 30; n++)
      published.push((await f.post({ slug: `p-${n}`, categoryId: category.id })).id);
    const drafts: string[] = [];
    for (let n = 0; n < 4; n++)
      drafts.push((await f.post({ slug: `d-${n}`, categoryId: category.id, status: "draft" })).id);
    const before = {
      public: (await readToEnd(ws.publicKey, null, 100)).cursor,
      private: (await readToEnd(ws.privateKey, null, 100)).cursor,
    };
    const renamed = await app.request("PATCH", `/v1/categories/${category.id}`, {
      key: ws.privateKey,
      body: { name: "Crowded, renamed" },
    });
    expect(renamed.status).toBe(200);

    for (const [key, from, posts] of [
      [ws.publicKey, before.public, published],
      [ws.privateKey, before.private, [...published, ...drafts]],
    ] as const) {
      for (const limit of [1, 7]) {
        const { pages } = await readToEnd(key, from, limit);
        for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
        const entries = pages.flat();
        // Every record the rename changed, once, as it is now; nothing else.
        expect(keysOf(entries).sort()).toEqual(
          [`upsert:category:${category.id}`, ...posts.map((id) => `upsert:post:${id}`)].sort(),
        );
        for (const entry of entries)
          if (entry.type === "post")
            expect(entry.op === "upsert" && entry.data.category).toMatchObject({ name: "Crowded, renamed" });
      }
    }
  });

  it("a post naming many tags pages by `limit` too", async () => {
    const ws = await app.workspace("Feed bound tags");
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("tagged");
    const tags: string[] = [];
    for (let n = 0; n < 12; n++) tags.push((await f.tag(`t-${n}`)).id);
    const post = await f.post({ slug: "many-tags", categoryId: category.id, tags });
    const authors = (await app.request("GET", `/v1/posts/${post.id}`, { key: ws.publicKey })).body.post
      .authors as { id: string }[];
    const { cursor } = await readToEnd(ws.publicKey, null, 100);
    // Publishing anew changes the counts of its category and every tag it carries.
    await app.request("PATCH", `/v1/posts/${post.id}`, { key: ws.privateKey, body: { status: "draft" } });
    await app.request("PATCH", `/v1/posts/${post.id}`, { key: ws.privateKey, body: { status: "published" } });
    const { pages } = await readToEnd(ws.publicKey, cursor, 5);
    for (const page of pages) {
      expect(page.length).toBeLessThanOrEqual(5);
      expect(new Set(keysOf(page)).size).toBe(page.length);
    }
    // Four events (two updates, the unpublish, the publish) each changed all of them: each comes again
    // on a later page, never twice on one.
    const upserts = pages.flat().filter((entry) => entry.op === "upsert");
    expect([...new Set(keysOf(upserts))].sort()).toEqual(
      [
        `upsert:post:${post.id}`,
        `upsert:category:${category.id}`,
        ...authors.map((author) => `upsert:author:${author.id}`),
        ...tags.map((id) => `upsert:tag:${id}`),
      ].sort(),
    );
  });
});

describe("a public key learns only of records it could have read", () => {
  async function setUp(name: string) {
    const ws = await app.workspace(name);
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("news");
    const cursors = {
      public: (await readToEnd(ws.publicKey, null, 100)).cursor,
      private: (await readToEnd(ws.privateKey, null, 100)).cursor,
    };
    return { ws, f, category, cursors };
  }

  it("a draft or a scheduled post that is deleted leaves no trace: no id, no slug", async () => {
    const { ws, f, category, cursors } = await setUp("Feed drafts");
    const draft = await f.post({
      slug: "secret-unannounced-product",
      categoryId: category.id,
      status: "draft",
    });
    await app.request("PATCH", `/v1/posts/${draft.id}`, { key: ws.privateKey, body: { title: "Secret" } });
    const scheduled = await f.post({
      slug: "scheduled-launch",
      categoryId: category.id,
      publishedAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    for (const id of [draft.id, scheduled.id])
      expect((await app.request("DELETE", `/v1/posts/${id}`, { key: ws.privateKey })).status).toBe(200);

    const seen = (await readToEnd(ws.publicKey, cursors.public, 1)).pages.flat();
    const text = JSON.stringify(seen);
    for (const secret of [draft.id, scheduled.id, "secret-unannounced-product", "scheduled-launch"])
      expect(text).not.toContain(secret);
    // Not even the category they were in: its count of public posts never moved.
    expect(seen).toEqual([]);

    // A private key saw both and is told they are gone.
    const privately = (await readToEnd(ws.privateKey, cursors.private, 100)).pages.flat();
    expect(privately.filter((entry) => entry.type === "post")).toEqual([
      {
        op: "delete",
        type: "post",
        id: draft.id,
        slug: "secret-unannounced-product",
        removedAt: expect.any(String),
      },
      {
        op: "delete",
        type: "post",
        id: scheduled.id,
        slug: "scheduled-launch",
        removedAt: expect.any(String),
      },
    ]);
  });

  it("a rename of a category never names the drafts in it", async () => {
    const { ws, f, category, cursors } = await setUp("Feed rename drafts");
    const draft = await f.post({ slug: "hidden-in-category", categoryId: category.id, status: "draft" });
    const after = (await readToEnd(ws.publicKey, cursors.public, 100)).cursor;
    await app.request("PATCH", `/v1/categories/${category.id}`, {
      key: ws.privateKey,
      body: { name: "News!" },
    });
    const seen = (await readToEnd(ws.publicKey, after, 100)).pages.flat();
    expect(keysOf(seen)).toEqual([`upsert:category:${category.id}`]);
    expect(JSON.stringify(seen)).not.toContain(draft.id);
  });

  it("a public post that leaves gives a tombstone with the slug it was public under", async () => {
    const { ws, f, category, cursors } = await setUp("Feed departures");
    const post = await f.post({ slug: "was-public", categoryId: category.id });
    const seen = await readToEnd(ws.publicKey, cursors.public, 100);
    expect(keysOf(seen.pages.flat())).toContain(`upsert:post:${post.id}`);
    // Unpublished and given a new slug in one write: the new slug was never public.
    await app.request("PATCH", `/v1/posts/${post.id}`, {
      key: ws.privateKey,
      body: { status: "draft", slug: "quietly-renamed" },
    });
    const gone = (await readToEnd(ws.publicKey, seen.cursor, 100)).pages.flat();
    expect(gone.filter((entry) => entry.type === "post")).toEqual([
      { op: "delete", type: "post", id: post.id, slug: "was-public", removedAt: expect.any(String) },
    ]);
    // Deleted later, while a draft: the public reader already let it go and hears nothing more.
    const next = (await readToEnd(ws.publicKey, seen.cursor, 100)).cursor;
    await app.request("DELETE", `/v1/posts/${post.id}`, { key: ws.privateKey });
    const after = (await readToEnd(ws.publicKey, next, 100)).pages.flat();
    expect(after.filter((entry) => entry.type === "post")).toEqual([]);
  });
});

describe("a key's cursors reveal nothing of other workspaces", () => {
  const payloadOf = (cursor: string) =>
    JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
  /** The cursor without the moment it was issued (its last element), which differs on every read. */
  const placeOf = (cursor: string) => payloadOf(cursor).slice(0, -1);

  it("a first read's cursor stays the same while another workspace writes", async () => {
    const ws = await app.workspace("Feed tenant A");
    const other: TestWorkspace = await app.workspace("Feed tenant B");
    await restFixtures(app, ws.privateKey).category("mine");
    const first = await app.request("GET", "/v1/changes?limit=100", { key: ws.publicKey });
    const g = restFixtures(app, other.privateKey);
    for (let n = 0; n < 3; n++) await g.tag(`theirs-${n}`);
    const again = await app.request("GET", "/v1/changes?limit=100", { key: ws.publicKey });
    expect(placeOf(again.body.nextCursor)).toEqual(placeOf(first.body.nextCursor));
  });

  it("a cursor does not hold the log's global position", async () => {
    const ws = await app.workspace("Feed tenant C");
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("c");
    const start = (await readToEnd(ws.publicKey, null, 100)).cursor;
    await f.post({ slug: "counted", categoryId: category.id });
    const { cursor } = await readToEnd(ws.publicKey, start, 100);
    const newest = await app.db.prisma.event.findFirst({
      where: { workspaceId: ws.id },
      orderBy: { position: "desc" },
      select: { position: true },
    });
    const position = newest?.position.toString();
    expect(position).toBeDefined();
    expect(payloadOf(cursor).map(String)).not.toContain(position);
  });
});

describe("a cursor whose event is gone", () => {
  it("reads the workspace's retained log again: repeats, misses nothing", async () => {
    const ws = await app.workspace("Feed pruned anchor");
    const f = restFixtures(app, ws.privateKey);
    const old = await f.tag("quiet-for-long");
    const { cursor } = await readToEnd(ws.publicKey, null, 100);
    // The event the cursor names ages past the retention and is pruned; the cursor itself is recent.
    const days = app.config.events.retentionDays;
    await app.db.prisma.$executeRawUnsafe(
      `UPDATE "Event" SET "createdAt" = now() - make_interval(days => $1) WHERE "resourceId" = $2`,
      days + 1,
      old.id,
    );
    expect(await pruneEvents(app.db.prisma, days)).toBeGreaterThanOrEqual(1);
    const fresh = await f.tag("written-since");
    const seen = (await readToEnd(ws.publicKey, cursor, 1)).pages.flat();
    expect(keysOf(seen)).toContain(`upsert:tag:${fresh.id}`);
  });
});

describe("a cursor of the earlier format (the log's global position)", () => {
  it("is still read: the reader keeps its place", async () => {
    const ws = await app.workspace("Feed format one");
    const f = restFixtures(app, ws.privateKey);
    await f.category("seen-before");
    const scope = JSON.parse(
      Buffer.from((await readToEnd(ws.publicKey, null, 100)).cursor, "base64url").toString("utf8"),
    )[1];
    const newest = await app.db.prisma.event.findFirst({
      where: { workspaceId: ws.id },
      orderBy: { position: "desc" },
      select: { position: true },
    });
    // What format 1 held: [1, scope, "l", position, 0, null, issued at].
    const held = [1, scope, "l", String(newest?.position), 0, null, Date.now()];
    const cursor = Buffer.from(JSON.stringify(held)).toString("base64url");
    const fresh = await f.category("written-after");
    const seen = (await readToEnd(ws.publicKey, cursor, 100)).pages.flat();
    expect(keysOf(seen)).toEqual([`upsert:category:${fresh.id}`]);
  });
});
