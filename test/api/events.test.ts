// GET /v1/events: the change log. Every content write through REST leaves its events, whose `data` is
// what the REST GET answers right after the write (deletes: the last id and slug); status changes add
// post.published/post.unpublished; the log reads in order and resumes from a cursor; `types` filters;
// private keys only; another workspace's events and cursors stay out; a rolled-back write leaves no
// event; a cursor older than the retention answers 410 and pruning removes old events.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pruneEvents } from "../../src/content/changes/event-retention.ts";
import type { Prisma } from "../../src/generated/prisma/client.ts";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Events");
  other = await app.workspace("Other");
});
afterAll(async () => app?.close());

interface LoggedEvent {
  id: string;
  type: string;
  workspaceId: string;
  resourceId: string;
  slug: string | null;
  data: Record<string, unknown>;
  createdAt: string;
}

async function readLog(query = "", key = ws.privateKey) {
  const res = await app.request("GET", `/v1/events${query}`, { key });
  expectMatchesOpenApi(res, "get", "/v1/events");
  return res;
}

/** Every event of the workspace after `cursor`, following nextCursor to the end. */
async function eventsAfter(cursor: string | null, key = ws.privateKey) {
  const events: LoggedEvent[] = [];
  let after = cursor;
  for (;;) {
    const res = await readLog(`?limit=100${after ? `&after=${after}` : ""}`, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    events.push(...res.body.events);
    after = res.body.nextCursor;
    if (!res.body.hasMore) return { events, cursor: after };
  }
}

/** The log's end now: the cursor to read what happens next from. */
async function logEnd(key = ws.privateKey): Promise<string | null> {
  return (await eventsAfter(null, key)).cursor;
}

/** Runs `act` and answers the events it left, after checking they are exactly `types`. */
async function eventsOf(act: () => Promise<unknown>, types: string[]): Promise<LoggedEvent[]> {
  const cursor = await logEnd();
  await act();
  const { events } = await eventsAfter(cursor);
  expect(events.map((event) => event.type)).toEqual(types);
  for (const event of events) {
    expect(event.workspaceId).toBe(ws.id);
    expect(event.id).toMatch(/^evt_/);
  }
  return events;
}

async function send(method: string, path: string, body?: unknown, wrapper?: string) {
  const res = await app.request(method, path, { key: ws.privateKey, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return (wrapper ? res.body[wrapper] : res.body) as { id: string };
}

async function get(path: string, wrapper: string) {
  const res = await app.request("GET", path, { key: ws.privateKey });
  expect(res.status).toBe(200);
  return res.body[wrapper];
}

describe("each write leaves its events, data equal to the REST GET right after it", () => {
  it("categories, tags and authors: created, updated, deleted", async () => {
    for (const [many, one, extra] of [
      ["categories", "category", { description: "About things" }],
      ["tags", "tag", {}],
      [
        "authors",
        "author",
        { bio: "Writes", socials: [{ platform: "github", url: "https://github.com/a" }] },
      ],
    ] as const) {
      let id = "";
      const [created] = await eventsOf(async () => {
        id = (await send("POST", `/v1/${many}`, { name: "First", slug: `first-${one}`, ...extra }, one)).id;
      }, [`${one}.created`]);
      expect(created).toMatchObject({ resourceId: id, slug: `first-${one}` });
      expect(created?.data).toEqual(await get(`/v1/${many}/${id}`, one));

      const [updated] = await eventsOf(
        () => send("PATCH", `/v1/${many}/${id}`, { name: "Renamed", slug: `renamed-${one}` }),
        [`${one}.updated`],
      );
      expect(updated).toMatchObject({ resourceId: id, slug: `renamed-${one}` });
      expect(updated?.data).toEqual(await get(`/v1/${many}/${id}`, one));
      expect(updated?.data.name).toBe("Renamed");

      const [deleted] = await eventsOf(() => send("DELETE", `/v1/${many}/${id}`), [`${one}.deleted`]);
      expect(deleted).toMatchObject({
        resourceId: id,
        slug: `renamed-${one}`,
        data: { id, slug: `renamed-${one}` },
      });
    }
  });

  it("fields: created, updated, deleted (the key is the slug)", async () => {
    let id = "";
    const [created] = await eventsOf(async () => {
      id = (
        await send(
          "POST",
          "/v1/fields",
          { key: "mood", name: "Mood", type: "select", options: [{ value: "calm", label: "Calm" }] },
          "field",
        )
      ).id;
    }, ["field.created"]);
    expect(created).toMatchObject({ resourceId: id, slug: "mood" });
    expect(created?.data).toEqual(await get(`/v1/fields/${id}`, "field"));

    const [updated] = await eventsOf(
      () =>
        send("PATCH", `/v1/fields/${id}`, { name: "Feeling", options: [{ value: "glad", label: "Glad" }] }),
      ["field.updated"],
    );
    expect(updated?.data).toEqual(await get(`/v1/fields/${id}`, "field"));

    const [deleted] = await eventsOf(() => send("DELETE", `/v1/fields/${id}`), ["field.deleted"]);
    expect(deleted).toMatchObject({ resourceId: id, slug: "mood", data: { id, key: "mood" } });
  });

  it("media: uploaded, updated, deleted", async () => {
    let id = "";
    const [uploaded] = await eventsOf(async () => {
      const form = new FormData();
      form.append("alt", "A square");
      form.append(
        "file",
        new Blob([new Uint8Array(await makeImage("png"))], { type: "image/png" }),
        "square.png",
      );
      const res = await fetch(`${app.url}/v1/media/upload`, {
        method: "POST",
        headers: { authorization: ws.privateKey },
        body: form,
      });
      expect(res.status).toBe(201);
      id = ((await res.json()) as { media: { id: string } }).media.id;
    }, ["media.uploaded"]);
    expect(uploaded).toMatchObject({ resourceId: id, slug: null });
    expect(uploaded?.data).toEqual(await get(`/v1/media/${id}`, "media"));

    const [updated] = await eventsOf(
      () => send("PATCH", `/v1/media/${id}`, { name: "Square" }),
      ["media.updated"],
    );
    expect(updated?.data).toEqual(await get(`/v1/media/${id}`, "media"));

    const [deleted] = await eventsOf(() => send("DELETE", `/v1/media/${id}`), ["media.deleted"]);
    expect(deleted).toMatchObject({ resourceId: id, data: { id } });
  });

  it("posts: created as draft, published, edited, unpublished, created as published, deleted", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("events-news");
    const tag = await f.tag("events-tag");
    const author = await f.author("events-author");
    await send("POST", "/v1/fields", { key: "subtitle", name: "Subtitle", type: "text" });
    const post = (id: string) => get(`/v1/posts/${id}?status=all`, "post");
    let id = "";

    const [created] = await eventsOf(async () => {
      id = (
        await f.post({
          slug: "logged",
          categoryId: category.id,
          status: "draft",
          tags: [tag.id],
          authors: [author.id],
          fields: { subtitle: "Sub" },
        })
      ).id;
    }, ["post.created"]);
    expect(created).toMatchObject({ resourceId: id, slug: "logged" });
    expect(created?.data).toEqual(await post(id));

    const published = await eventsOf(
      () => send("PATCH", `/v1/posts/${id}`, { status: "published" }),
      ["post.updated", "post.published"],
    );
    for (const event of published) expect(event.data).toEqual(await post(id));

    const [edited] = await eventsOf(
      () => send("PATCH", `/v1/posts/${id}`, { title: "Edited", status: "published" }),
      ["post.updated"],
    );
    expect(edited?.data).toEqual(await post(id));
    expect(edited?.data.title).toBe("Edited");

    const unpublished = await eventsOf(
      () => send("PATCH", `/v1/posts/${id}`, { status: "draft", slug: "logged-draft" }),
      ["post.updated", "post.unpublished"],
    );
    expect(unpublished[1]).toMatchObject({
      slug: "logged-draft",
      data: { status: "draft", slug: "logged-draft" },
    });

    const asPublished = await eventsOf(
      () => f.post({ slug: "born-published", categoryId: category.id }),
      ["post.created", "post.published"],
    );
    expect(asPublished[0]?.data).toEqual(await post(asPublished[0]?.resourceId ?? ""));

    const [deleted] = await eventsOf(() => send("DELETE", `/v1/posts/${id}`), ["post.deleted"]);
    expect(deleted).toMatchObject({
      resourceId: id,
      slug: "logged-draft",
      data: { id, slug: "logged-draft" },
    });
  });
});

describe("an event's data is bounded: it never lists the records a change reaches", () => {
  // Webhook payloads and subscription messages are these events: what bounds `data` bounds them.
  it("renames and deletes of a category, tag or author name no posts; a delete's posts get an event each", async () => {
    const space = await app.workspace("Events bounded");
    const key = space.privateKey;
    const f = restFixtures(app, key);
    const category = await f.category("wide");
    const tag = await f.tag("wide-tag");
    const author = await f.author("wide-author");
    const posts: string[] = [];
    for (let n = 0; n < 25; n++)
      posts.push(
        (await f.post({ slug: `wide-${n}`, categoryId: category.id, tags: [tag.id], authors: [author.id] }))
          .id,
      );
    const start = await logEnd(key);
    await app.request("PATCH", `/v1/categories/${category.id}`, { key, body: { name: "Wide, renamed" } });
    await app.request("PATCH", `/v1/tags/${tag.id}`, { key, body: { name: "Wide tag, renamed" } });
    await app.request("PATCH", `/v1/authors/${author.id}`, { key, body: { name: "Wide author, renamed" } });
    expect((await app.request("DELETE", `/v1/tags/${tag.id}`, { key })).status).toBe(200);
    const { events } = await eventsAfter(start, key);

    const taxonomy = events.filter((event) => !event.type.startsWith("post."));
    expect(taxonomy.map((event) => event.type)).toEqual([
      "category.updated",
      "tag.updated",
      "author.updated",
      "tag.deleted",
    ]);
    for (const event of taxonomy) {
      const text = JSON.stringify(event.data);
      for (const id of posts) expect(text).not.toContain(id);
      // The record itself and its count: the same size with 25 posts as with none.
      expect(text.length).toBeLessThan(1_000);
    }
    expect(taxonomy[0]?.data).toMatchObject({ id: category.id, count: { posts: 25 } });
    // The tag's delete changed every post's read form: one post.updated per post, each its own post.
    const updates = events.filter((event) => event.type === "post.updated");
    expect(updates.map((event) => event.resourceId).sort()).toEqual([...posts].sort());
    for (const event of updates) {
      expect(event.data).toMatchObject({ id: event.resourceId, tags: [] });
      for (const id of posts)
        if (id !== event.resourceId) expect(JSON.stringify(event.data)).not.toContain(id);
    }
  });
});

describe("reading the log", () => {
  it("answers in order, resumes from a cursor without repeats or gaps, and pages by limit", async () => {
    const start = await logEnd();
    const f = restFixtures(app, ws.privateKey);
    const tags = [];
    for (const n of [1, 2, 3, 4, 5]) tags.push(await f.tag(`ordered-${n}`));
    const first = await readLog(`?limit=2&after=${start}`);
    expect(first.status).toBe(200);
    expect(first.body.hasMore).toBe(true);
    expect(first.body.events.map((e: LoggedEvent) => e.resourceId)).toEqual([tags[0]?.id, tags[1]?.id]);
    const rest = await eventsAfter(first.body.nextCursor);
    expect(rest.events.map((e) => e.resourceId)).toEqual(tags.slice(2).map((tag) => tag.id));
    // Sortable ids follow the order too.
    const ids = [...first.body.events, ...rest.events].map((e: LoggedEvent) => e.id);
    expect([...ids].sort()).toEqual(ids);

    const idle = await readLog(`?after=${rest.cursor}`);
    expect(idle.body).toEqual({ events: [], nextCursor: rest.cursor, hasMore: false });
  });

  it("filters by type", async () => {
    const start = await logEnd();
    const f = restFixtures(app, ws.privateKey);
    const tag = await f.tag("filtered");
    await send("PATCH", `/v1/tags/${tag.id}`, { name: "Filtered again" });
    await f.category("filtered-category");
    const res = await readLog(`?after=${start}&types=tag.updated,category.created`);
    expect(res.body.events.map((e: LoggedEvent) => e.type)).toEqual(["tag.updated", "category.created"]);
  });

  it("refuses unknown types and malformed cursors with 400", async () => {
    const res = await readLog("?types=post.created,post.exploded");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "Validation failed", details: [{ field: "types.1" }] });
    const bad = await readLog("?after=not-a-cursor");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "Validation failed", details: [{ field: "after" }] });
  });

  it("needs a private key: 403 for a public one", async () => {
    const res = await readLog("", ws.publicKey);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "Forbidden" });
  });

  it("never shows another workspace's events, and refuses its cursors", async () => {
    await restFixtures(app, other.privateKey).tag("elsewhere");
    const mine = await eventsAfter(null);
    expect(mine.events.length).toBeGreaterThan(0);
    expect(mine.events.every((event) => event.workspaceId === ws.id)).toBe(true);
    const theirs = await eventsAfter(null, other.privateKey);
    expect(theirs.events.map((event) => event.slug)).toEqual(["elsewhere"]);

    const res = await readLog(`?after=${mine.cursor}`, other.privateKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/another workspace/);
  });
});

describe("the log and the write are one transaction", () => {
  it("a write that fails after its events were appended leaves neither the change nor an event", async () => {
    expectServerErrors();
    const start = await logEnd();
    const prisma = app.db.prisma;
    const transaction = prisma.$transaction.bind(prisma) as (
      fn: (tx: Prisma.TransactionClient) => Promise<unknown>,
    ) => Promise<unknown>;
    let appendedInside = 0;
    const spy = vi.spyOn(prisma, "$transaction").mockImplementationOnce((async (
      fn: (tx: Prisma.TransactionClient) => Promise<unknown>,
    ) =>
      transaction(async (tx) => {
        await fn(tx);
        // The write and its events are done; the transaction has not committed yet.
        appendedInside = await tx.event.count({ where: { workspaceId: ws.id, slug: "rolled-back" } });
        throw new Error("connection lost before COMMIT");
      })) as never);
    try {
      const res = await app.request("POST", "/v1/tags", {
        key: ws.privateKey,
        body: { name: "Rolled back", slug: "rolled-back" },
      });
      expect(res.status).toBe(500);
    } finally {
      spy.mockRestore();
    }
    expect(appendedInside).toBe(1);
    expect((await app.request("GET", "/v1/tags/rolled-back", { key: ws.privateKey })).status).toBe(404);
    expect((await eventsAfter(start)).events).toEqual([]);
  });
});

describe("retention", () => {
  it("a cursor older than the retention answers 410; pruning deletes only old events", async () => {
    const tag = await restFixtures(app, ws.privateKey).tag("ancient");
    const recent = await restFixtures(app, ws.privateKey).tag("recent");
    const days = app.config.events.retentionDays;
    // The first event is made older than the retention, as if it had been written long ago.
    await app.db.prisma.$executeRawUnsafe(
      `UPDATE "Event" SET "createdAt" = now() - make_interval(days => $1) WHERE "resourceId" = $2`,
      days + 1,
      tag.id,
    );
    const page = (await eventsAfter(null)).events;
    const index = page.findIndex((event) => event.resourceId === tag.id);
    expect(index).toBeGreaterThanOrEqual(0);
    // The cursor of the old event, as a client that stopped reading there holds it.
    const held = await readLog(`?limit=${index + 1}`);
    const expired = await readLog(`?after=${held.body.nextCursor}`);
    expect(expired.status).toBe(410);
    expect(expired.body).toEqual({ error: "Cursor expired", message: expect.stringMatching(/resync/) });

    expect(await pruneEvents(app.db.prisma, days)).toBeGreaterThanOrEqual(1);
    const left = (await eventsAfter(null)).events;
    expect(left.some((event) => event.resourceId === tag.id)).toBe(false);
    expect(left.some((event) => event.resourceId === recent.id)).toBe(true);
  });
});
