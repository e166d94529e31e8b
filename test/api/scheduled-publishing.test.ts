// Scheduled publishing: a post with status published and a publishedAt ahead is invisible to public
// reads (single, lists, counts, search, the delta feed) until that moment, visible to private keys as
// `scheduled: true` (and with `status=scheduled`); at the due time the scheduler records ONE
// post.published event, which webhooks deliver — in-process here, across two real server processes
// on PostgreSQL below. A restart after the due time publishes on start-up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBackgroundWork } from "../../src/bootstrap.ts";
import { silentLogger } from "../../src/logger.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { adminWorkspace, type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { storageMode } from "../helpers/test-database.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", RATE_LIMIT_AUTHENTICATED: "100000" };
const SCHEDULE_AHEAD_MS = 2_000;

let app: TestApp;
const receivers: WebhookReceiver[] = [];
const groups: ReturnType<typeof instanceGroup>[] = [];

beforeAll(async () => {
  app = await startTestApp({ background: true, env: ENV });
});
afterAll(async () => {
  await app?.close();
  await Promise.all(groups.map((group) => group.stop()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a public key sees of a workspace's posts, through every read that must agree. */
async function publicView(ws: TestWorkspace, slugs: { scheduled: string; category: string; tag: string }) {
  const key = ws.publicKey;
  // All at once: the whole view is taken well inside the 2 seconds.
  const [list, single, category, tag, search, changes, gqlPost, gqlList] = await Promise.all([
    app.request("GET", "/v1/posts?limit=50", { key }),
    app.request("GET", `/v1/posts/${slugs.scheduled}`, { key }),
    app.request("GET", `/v1/categories/${slugs.category}`, { key }),
    app.request("GET", `/v1/tags/${slugs.tag}`, { key }),
    app.request("GET", "/v1/posts?query=zeppelin", { key }),
    app.request("GET", "/v1/changes?limit=100", { key }),
    app.graphql(key, `{ post(identifier: "${slugs.scheduled}") { id } }`),
    app.graphql(key, "{ posts { pagination { totalItems } } }"),
  ]);
  return {
    listed: (list.body.posts as { slug: string }[]).map((post) => post.slug),
    totalItems: list.body.pagination.totalItems as number,
    singleStatus: single.status,
    categoryCount: category.body.category?.count?.posts as number,
    tagCount: tag.body.tag?.count?.posts as number,
    searched: (search.body.posts as { slug: string }[]).map((post) => post.slug),
    changedPosts: (changes.body.changes as { op: string; type: string; data?: { slug: string } }[])
      .filter((change) => change.type === "post" && change.op === "upsert")
      .map((change) => change.data?.slug),
    graphqlFound: gqlPost.data?.post ? true : (gqlPost.errors?.[0]?.extensions?.code as string),
    graphqlTotal: gqlList.data?.posts?.pagination?.totalItems as number,
  };
}

async function publishedEvents(ws: TestWorkspace, postId: string): Promise<unknown[]> {
  const res = await app.request("GET", "/v1/events?types=post.published&limit=100", { key: ws.privateKey });
  expect(res.status).toBe(200);
  return (res.body.events as { resourceId: string }[]).filter((event) => event.resourceId === postId);
}

describe("scheduled publishing", () => {
  it("a post scheduled 2 s ahead is invisible to public reads, lists and counts, then visible with one post.published", async () => {
    const ws = await app.workspace("Scheduled");
    const make = restFixtures(app, ws.privateKey);
    const hook = await receiver();
    const hooked = await app.request("POST", "/v1/webhooks", {
      key: ws.privateKey,
      body: { url: hook.url, events: ["post.published"] },
    });
    expect(hooked.status).toBe(201);
    const news = await make.category("news");
    const airships = await make.tag("airships");
    const live = await make.post({ slug: "already-out", categoryId: news.id, tags: [airships.id] });
    await hook.waitFor((got) => got.some((r) => r.json.data.slug === "already-out"), 10_000);
    // Scheduled an hour ahead while the reads look at it (they take seconds on a loaded machine), then
    // rescheduled to 2 s ahead: the reads cannot race the due time.
    const scheduled = await make.post({
      slug: "zeppelin-news",
      title: "Zeppelin news",
      categoryId: news.id,
      tags: [airships.id],
      publishedAt: inFuture(3_600_000),
    });
    const slugs = { scheduled: "zeppelin-news", category: "news", tag: "airships" };

    const [before, privateRead, scheduledList, defaultPrivateList, publicAsksScheduled, gqlScheduled, early] =
      await Promise.all([
        publicView(ws, slugs),
        app.request("GET", "/v1/posts/zeppelin-news?status=all", { key: ws.privateKey }),
        app.request("GET", "/v1/posts?status=scheduled", { key: ws.privateKey }),
        app.request("GET", "/v1/posts", { key: ws.privateKey }),
        app.request("GET", "/v1/posts?status=scheduled", { key: ws.publicKey }),
        app.graphql(ws.privateKey, "{ posts(status: SCHEDULED) { items { slug scheduled } } }"),
        publishedEvents(ws, scheduled.id),
      ]);
    expect(before).toEqual({
      listed: ["already-out"],
      totalItems: 1,
      singleStatus: 404,
      categoryCount: 1,
      tagCount: 1,
      searched: [],
      changedPosts: ["already-out"],
      graphqlFound: "NOT_FOUND",
      graphqlTotal: 1,
    });
    // Private keys see it, marked; `status=scheduled` lists exactly the scheduled ones; public keys may not ask.
    expect(privateRead.body.post).toMatchObject({
      slug: "zeppelin-news",
      status: "published",
      scheduled: true,
    });
    expect(scheduledList.body.posts.map((post: { slug: string }) => post.slug)).toEqual(["zeppelin-news"]);
    expect(defaultPrivateList.body.posts.map((post: { slug: string }) => post.slug)).toEqual(["already-out"]);
    expect(defaultPrivateList.body.posts[0].scheduled).toBe(false);
    expect(publicAsksScheduled.status).toBe(403);
    expect(gqlScheduled.data?.posts.items).toEqual([{ slug: "zeppelin-news", scheduled: true }]);
    // Saved, not published: no post.published event yet.
    expect(early).toHaveLength(0);

    const dueAt = Date.now() + SCHEDULE_AHEAD_MS;
    const rescheduled = await app.request("PATCH", `/v1/posts/${scheduled.id}`, {
      key: ws.privateKey,
      body: { publishedAt: new Date(dueAt).toISOString() },
    });
    expect(rescheduled.status).toBe(200);
    expect(await publishedEvents(ws, scheduled.id)).toHaveLength(0);

    const arrived = await hook.waitFor(
      (got) => got.some((r) => r.json.data.slug === "zeppelin-news"),
      SCHEDULE_AHEAD_MS + 5_000,
    );
    const delivered = arrived.find((r) => r.json.data.slug === "zeppelin-news");
    // Not before its time (the receiver's clock is this process's).
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
    expect(delivered?.receivedAt).toBeDefined();
    expect(delivered?.json).toMatchObject({
      type: "post.published",
      data: { id: scheduled.id, scheduled: false },
    });

    const after = await publicView(ws, slugs);
    expect(after).toEqual({
      listed: ["zeppelin-news", "already-out"],
      totalItems: 2,
      singleStatus: 200,
      categoryCount: 2,
      tagCount: 2,
      searched: ["zeppelin-news"],
      changedPosts: expect.arrayContaining(["already-out", "zeppelin-news"]),
      graphqlFound: true,
      graphqlTotal: 2,
    });
    // Exactly once: anything more would arrive right behind.
    await sleep(500);
    expect(hook.received.filter((r) => r.json.data.id === scheduled.id)).toHaveLength(1);
    expect(await publishedEvents(ws, scheduled.id)).toHaveLength(1);
    expect(live.id).not.toBe(scheduled.id);
  }, 30_000);

  it("rescheduling, unscheduling and publishing now go through the ordinary update", async () => {
    const ws = await app.workspace("Rescheduled");
    const make = restFixtures(app, ws.privateKey);
    const news = await make.category("news");
    const post = await make.post({ slug: "moving", categoryId: news.id });
    const patch = (body: Record<string, unknown>) =>
      app.request("PATCH", `/v1/posts/${post.id}`, { key: ws.privateKey, body });
    const publicStatus = async () =>
      (await app.request("GET", "/v1/posts/moving", { key: ws.publicKey })).status;
    const eventTypes = async () => {
      const res = await app.request("GET", "/v1/events?limit=100", { key: ws.privateKey });
      return (res.body.events as { type: string; resourceId: string }[])
        .filter((event) => event.resourceId === post.id)
        .map((event) => event.type);
    };

    expect((await patch({ publishedAt: inFuture(3_600_000) })).status).toBe(200);
    expect(await publicStatus()).toBe(404);
    expect((await patch({ status: "draft" })).status).toBe(200);
    expect((await patch({ status: "published" })).status).toBe(200);
    expect(await publicStatus()).toBe(404);
    expect((await patch({ publishedAt: new Date().toISOString() })).status).toBe(200);
    expect(await publicStatus()).toBe(200);
    // Going public and leaving public view are the events; saving a scheduled post is only an update.
    expect(await eventTypes()).toEqual([
      "post.created",
      "post.published",
      "post.updated",
      "post.unpublished",
      "post.updated",
      "post.updated",
      "post.updated",
      "post.published",
    ]);
  });

  it("a restart after the due time publishes on start-up", async () => {
    // An app without background work stands for the stopped service.
    const stopped = await startTestApp({ env: ENV });
    try {
      const ws = await stopped.workspace("Restart");
      const make = restFixtures(stopped, ws.privateKey);
      const news = await make.category("news");
      const post = await make.post({ slug: "while-down", categoryId: news.id, publishedAt: inFuture(300) });
      await sleep(600);
      const types = async () => {
        const res = await stopped.request("GET", "/v1/events?types=post.published", { key: ws.privateKey });
        return (res.body.events as { resourceId: string }[]).filter((event) => event.resourceId === post.id);
      };
      expect(await types()).toHaveLength(0);
      expect((await stopped.request("GET", "/v1/posts/while-down", { key: ws.publicKey })).status).toBe(200);

      const background = await startBackgroundWork(
        stopped.config,
        stopped.db,
        silentLogger,
        stopped.mediaStorage,
      );
      try {
        const deadline = Date.now() + 5_000;
        while ((await types()).length === 0 && Date.now() < deadline) await sleep(50);
        expect(await types()).toHaveLength(1);
      } finally {
        await background.stop(1_000);
      }
    } finally {
      await stopped.close();
    }
  });
});

describe.skipIf(storageMode !== "postgres")("scheduled publishing across instances", () => {
  it("two server processes record and deliver post.published once, at the due time", async () => {
    const group = instanceGroup("scheduled");
    groups.push(group);
    const a = await group.start(ENV);
    const b = await group.start(ENV);
    const hook = await receiver();
    const ws = await adminWorkspace(a, "Two schedulers");
    const call = (instance: Instance, method: string, path: string, key: string, body?: unknown) =>
      fetch(`${instance.url}${path}`, {
        method,
        headers: { authorization: key, "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    expect(
      (await call(a, "POST", "/v1/webhooks", ws.privateKey, { url: hook.url, events: ["post.published"] }))
        .status,
    ).toBe(201);
    const category = await call(a, "POST", "/v1/categories", ws.privateKey, { name: "News", slug: "news" });
    expect(category.status).toBe(201);
    const categoryId = ((await category.json()) as { category: { id: string } }).category.id;
    const dueAt = Date.now() + SCHEDULE_AHEAD_MS;
    const created = await call(b, "POST", "/v1/posts", ws.privateKey, {
      title: "Due soon",
      slug: "due-soon",
      content: "<p>Soon</p>",
      description: "Soon",
      categoryId,
      status: "published",
      publishedAt: new Date(dueAt).toISOString(),
    });
    expect(created.status).toBe(201);
    const postId = ((await created.json()) as { post: { id: string } }).post.id;

    for (const instance of [a, b]) {
      expect((await call(instance, "GET", "/v1/posts/due-soon", ws.publicKey)).status).toBe(404);
      const list = (await (await call(instance, "GET", "/v1/posts", ws.publicKey)).json()) as {
        pagination: { totalItems: number };
      };
      expect(list.pagination.totalItems).toBe(0);
    }

    await hook.waitFor((got) => got.some((r) => r.json.data.id === postId), SCHEDULE_AHEAD_MS + 10_000);
    const deliveredAt = Date.now();
    // Heard at the due time (both schedulers armed for it), not at a later sweep or write.
    expect(deliveredAt - dueAt).toBeLessThan(3_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const sent = hook.received.filter((r) => r.json.data.id === postId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.json.type).toBe("post.published");
    const events = (await (
      await call(a, "GET", "/v1/events?types=post.published", ws.privateKey)
    ).json()) as {
      events: { resourceId: string }[];
    };
    expect(events.events.filter((event) => event.resourceId === postId)).toHaveLength(1);
    for (const instance of [a, b])
      expect((await call(instance, "GET", "/v1/posts/due-soon", ws.publicKey)).status).toBe(200);
  }, 90_000);
});
