// Scheduled publishing: a post with status published and a publishedAt ahead is invisible to public
// reads (single, lists, counts, search, the delta feed) until that moment, visible to private keys as
// `scheduled: true` (and with `status=scheduled`); at the due time the scheduler records ONE
// post.published event, which webhooks deliver — in-process here, across two real server processes
// on PostgreSQL below. A restart after the due time publishes on start-up. Translations (issue 56) are
// released on their own, each once, with two schedulers racing for them on one database (both stores).
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

describe("scheduled translations on two schedulers (issue 56)", () => {
  it("releases each translation due at one moment exactly once; one deleted before its time never appears", async () => {
    // No background work of its own: two instances' worth (two schedulers, two webhook dispatchers) on
    // one database, started below, race for every due translation as two server processes would.
    const shared = await startTestApp({ env: ENV });
    const instances: Awaited<ReturnType<typeof startBackgroundWork>>[] = [];
    try {
      const ws = await shared.workspace("Two schedulers, translations");
      const make = restFixtures(shared, ws.privateKey);
      const call = async (method: string, path: string, body?: unknown, key = ws.privateKey) => {
        const res = await shared.request(method, path, { key, body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        return res.body as Record<string, unknown>;
      };
      for (const code of ["de", "fr"]) await call("POST", "/v1/locales", { code });
      const hook = await receiver();
      await call("POST", "/v1/webhooks", { url: hook.url, events: ["post.published"] });
      const news = await make.category("news");
      const translation = (slug: string, publishedAt: string) => ({
        title: slug,
        slug,
        description: slug,
        content: `<p>${slug}</p>`,
        status: "published",
        publishedAt,
      });

      // Scheduled an hour ahead while the instances start (seconds on a loaded machine): P's de and
      // fr, Q's default locale (its own row) and Q's fr.
      const later = inFuture(3_600_000);
      const p = await make.post({ slug: "p-en", categoryId: news.id });
      const q = await make.post({ slug: "q-en", categoryId: news.id, publishedAt: later });
      await call("PATCH", `/v1/posts/${p.id}?locale=de`, translation("p-de", later));
      await call("PATCH", `/v1/posts/${p.id}?locale=fr`, translation("p-fr", later));
      await call("PATCH", `/v1/posts/${q.id}?locale=fr`, translation("q-fr", later));
      for (let n = 0; n < 2; n++)
        instances.push(
          await startBackgroundWork(shared.config, shared.db, silentLogger, shared.mediaStorage),
        );
      const publicRead = (path: string) => shared.request("GET", path, { key: ws.publicKey });
      expect((await publicRead("/v1/posts/p-de?locale=de&fallback=none")).status).toBe(404);

      // Then all four to one moment a few seconds ahead; P's French translation is removed at once.
      const due = inFuture(5_000);
      await call("PATCH", `/v1/posts/${p.id}?locale=fr`, { publishedAt: due });
      await call("DELETE", `/v1/posts/${p.id}?locale=fr`);
      await call("PATCH", `/v1/posts/${p.id}?locale=de`, { publishedAt: due });
      await call("PATCH", `/v1/posts/${q.id}`, { publishedAt: due });
      await call("PATCH", `/v1/posts/${q.id}?locale=fr`, { publishedAt: due });
      // All before their time, so that the two schedulers' timers are what release them.
      expect(Date.now(), "the writes took longer than the schedule ahead").toBeLessThan(Date.parse(due));

      const published = async () => {
        const res = await call("GET", "/v1/events?types=post.published&limit=100");
        return (res.events as { resourceId: string; data: { locale?: string } }[])
          .map((event) => `${event.resourceId === p.id ? "p" : "q"} ${event.data.locale ?? "default"}`)
          .sort();
      };
      // P's default locale went public at its creation.
      expect(await published()).toEqual(["p default"]);
      const expected = ["p de", "p default", "q default", "q fr"];
      const deadline = Date.now() + 15_000;
      while ((await published()).length < expected.length && Date.now() < deadline) await sleep(100);
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(due));
      // Once each: anything more would come right behind (both schedulers re-arm and look again).
      await sleep(1_500);
      expect(await published()).toEqual(expected);
      await hook.waitFor((got) => got.length >= expected.length, 10_000);
      await sleep(500);
      expect(
        hook.received
          .map((r) => `${r.json.data.id === p.id ? "p" : "q"} ${r.json.data.locale ?? "default"}`)
          .sort(),
      ).toEqual(expected);

      // What a public key sees now: de and Q's fr; P's fr nowhere.
      const german = await publicRead("/v1/posts/p-de?locale=de&fallback=none");
      expect(german.body.post).toMatchObject({ id: p.id, locale: "de", availableLocales: ["en", "de"] });
      expect(german.body.post.alternates).toEqual([
        { locale: "en", slug: "p-en" },
        { locale: "de", slug: "p-de" },
      ]);
      expect((await publicRead("/v1/posts/p-fr?locale=fr&fallback=none")).status).toBe(404);
      expect((await publicRead(`/v1/posts/${p.id}?locale=fr&fallback=none`)).status).toBe(404);
      const french = await publicRead("/v1/posts?locale=fr&fallback=none");
      expect((french.body.posts as { slug: string }[]).map((post) => post.slug)).toEqual(["q-fr"]);
      expect(french.body.pagination.totalItems).toBe(1);
      // Nor to a private key: the translation is gone, not hidden.
      const privateFrench = await shared.request(
        "GET",
        `/v1/posts/${p.id}?locale=fr&fallback=none&status=all`,
        {
          key: ws.privateKey,
        },
      );
      expect(privateFrench.status).toBe(404);
    } finally {
      await Promise.all(instances.map((instance) => instance.stop(1_000)));
      await shared.close();
    }
  }, 60_000);
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
