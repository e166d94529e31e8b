// Scheduled unpublishing (issue 56): `unpublishAt` on a post or on one translation (REST `?locale=`,
// GraphQL `locale:`) must lie ahead and after the publish date (else a 400 naming the field); when it
// comes, the scheduler makes that post or translation a draft and records what a manual unpublish
// records (post.updated and post.unpublished, naming the locale), once. Hard case 5: `de` scheduled to
// publish and `fr` to unpublish at one moment, with two schedulers racing (in-process on both stores, and
// two real server processes on PostgreSQL): each happens once; a translation deleted before its time
// never appears.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBackgroundWork } from "../../src/bootstrap.ts";
import { silentLogger } from "../../src/logger.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { adminWorkspace, type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { storageMode } from "../helpers/test-database.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", RATE_LIMIT_AUTHENTICATED: "100000" };

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

const translation = (slug: string, extra: Record<string, unknown> = {}) => ({
  title: slug,
  slug,
  description: slug,
  content: `<p>${slug}</p>`,
  status: "published",
  ...extra,
});

/** The parts of the answers the two-process test reads. */
type Answer = {
  post: { id: string };
  category: { id: string };
  events: StatusEvent[];
  pagination: { totalItems: number };
};

type StatusEvent = { type: string; resourceId: string; data: { locale?: string } };

/** The post.published / post.unpublished events of a workspace, as "type locale" (oldest first). */
function statusEvents(events: StatusEvent[], postId: string): string[] {
  return events
    .filter((event) => event.resourceId === postId)
    .map((event) => `${event.type} ${event.data.locale ?? "default"}`);
}

describe("unpublishAt validation", () => {
  it("refuses an unpublishAt in the past or not after publishedAt with a 400 naming it (REST and GraphQL)", async () => {
    const ws = await app.workspace("Unpublish validation");
    const make = restFixtures(app, ws.privateKey);
    await app.request("POST", "/v1/locales", { key: ws.privateKey, body: { code: "de" } });
    const news = await make.category("news");
    const base = {
      title: "T",
      content: "<p>x</p>",
      description: "d",
      categoryId: news.id,
      status: "published",
    };
    const problemsOf = (body: { details?: { field: string }[] }) =>
      (body.details ?? []).map((detail) => detail.field);

    const past = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: { ...base, slug: "past", unpublishAt: inFuture(-60_000) },
    });
    expect(past.status).toBe(400);
    expect(problemsOf(past.body)).toEqual(["unpublishAt"]);
    const beforePublish = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: { ...base, slug: "early", publishedAt: inFuture(7_200_000), unpublishAt: inFuture(3_600_000) },
    });
    expect(beforePublish.status).toBe(400);
    expect(problemsOf(beforePublish.body)).toEqual(["unpublishAt"]);
    const malformed = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: { ...base, slug: "bad", unpublishAt: "tomorrow" },
    });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain("unpublishAt");

    const post = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: { ...base, slug: "ok", unpublishAt: inFuture(3_600_000) },
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    const id = post.body.post.id as string;
    // A publishedAt moved past the unpublish already scheduled: 400 naming publishedAt.
    const moved = await app.request("PATCH", `/v1/posts/${id}`, {
      key: ws.privateKey,
      body: { publishedAt: inFuture(7_200_000) },
    });
    expect(moved.status).toBe(400);
    expect(problemsOf(moved.body)).toEqual(["publishedAt"]);
    // Both at once, in order: fine; null clears it.
    const both = await app.request("PATCH", `/v1/posts/${id}`, {
      key: ws.privateKey,
      body: { publishedAt: inFuture(7_200_000), unpublishAt: inFuture(10_800_000) },
    });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    const cleared = await app.request("PATCH", `/v1/posts/${id}`, {
      key: ws.privateKey,
      body: { unpublishAt: null },
    });
    expect(cleared.status).toBe(200);

    // A translation: checked against its own publishedAt, not the post's.
    const de = await app.request("PATCH", `/v1/posts/${id}?locale=de`, {
      key: ws.privateKey,
      body: translation("ok-de", { publishedAt: inFuture(3_600_000), unpublishAt: inFuture(1_800_000) }),
    });
    expect(de.status).toBe(400);
    expect(problemsOf(de.body)).toEqual(["unpublishAt"]);
    const deOk = await app.request("PATCH", `/v1/posts/${id}?locale=de`, {
      key: ws.privateKey,
      body: translation("ok-de", { unpublishAt: inFuture(1_800_000) }),
    });
    expect(deOk.status, JSON.stringify(deOk.body)).toBe(200);
    const deMoved = await app.request("PATCH", `/v1/posts/${id}?locale=de`, {
      key: ws.privateKey,
      body: { publishedAt: inFuture(3_600_000) },
    });
    expect(deMoved.status).toBe(400);
    expect(problemsOf(deMoved.body)).toEqual(["publishedAt"]);

    const gql = await app.graphql(
      ws.privateKey,
      `mutation($id: String!, $at: DateTime) { updatePost(identifier: $id, locale: "de", input: { unpublishAt: $at }) { id } }`,
      { id, at: inFuture(-1_000) },
    );
    expect(gql.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(gql.errors?.[0]?.extensions)).toContain("unpublishAt");
    const gqlOk = await app.graphql(
      ws.privateKey,
      `mutation($id: String!, $at: DateTime) { updatePost(identifier: $id, locale: "de", input: { unpublishAt: $at }) { id } }`,
      { id, at: inFuture(3_600_000) },
    );
    expect(gqlOk.errors).toBeUndefined();
  });
});

describe("scheduled unpublishing", () => {
  it("unpublishes a post at its unpublishAt: public until then, then a draft with one post.unpublished", async () => {
    const ws = await app.workspace("Scheduled unpublish");
    const make = restFixtures(app, ws.privateKey);
    const news = await make.category("news");
    const post = await make.post({ slug: "fading", categoryId: news.id });
    const due = inFuture(2_000);
    const scheduled = await app.request("PATCH", `/v1/posts/${post.id}`, {
      key: ws.privateKey,
      body: { unpublishAt: due },
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    expect((await app.request("GET", "/v1/posts/fading", { key: ws.publicKey })).status).toBe(200);

    const events = async () => {
      const res = await app.request("GET", "/v1/events?types=post.published,post.unpublished&limit=100", {
        key: ws.privateKey,
      });
      return statusEvents(res.body.events as StatusEvent[], post.id);
    };
    const deadline = Date.now() + 15_000;
    while ((await events()).length < 2 && Date.now() < deadline) await sleep(100);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(due));
    await sleep(1_000);
    expect(await events()).toEqual(["post.published default", "post.unpublished default"]);
    expect((await app.request("GET", "/v1/posts/fading", { key: ws.publicKey })).status).toBe(404);
    const privateRead = await app.request("GET", "/v1/posts/fading?status=all", { key: ws.privateKey });
    expect(privateRead.body.post.status).toBe("draft");
    // The same event a manual unpublish records: post.updated beside it.
    const updated = await app.request("GET", "/v1/events?types=post.updated&limit=100", {
      key: ws.privateKey,
    });
    expect((updated.body.events as StatusEvent[]).filter((e) => e.resourceId === post.id)).toHaveLength(2);
  }, 30_000);
});

describe("hard case 5: de to publish and fr to unpublish at one moment, two schedulers (both stores)", () => {
  it("each happens once; a translation deleted before its time never appears", async () => {
    // No background work of its own: two instances' worth of schedulers on one database, started below.
    const shared = await startTestApp({ env: ENV });
    const instances: Awaited<ReturnType<typeof startBackgroundWork>>[] = [];
    try {
      const ws = await shared.workspace("Two schedulers, publish and unpublish");
      const make = restFixtures(shared, ws.privateKey);
      const call = async (method: string, path: string, body?: unknown, key = ws.privateKey) => {
        const res = await shared.request(method, path, { key, body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        return res.body as Record<string, unknown>;
      };
      for (const code of ["de", "fr", "it"]) await call("POST", "/v1/locales", { code });
      const news = await make.category("news");
      const later = inFuture(3_600_000);
      const p = await make.post({ slug: "p-en", categoryId: news.id });
      await call("PATCH", `/v1/posts/${p.id}?locale=de`, translation("p-de", { publishedAt: later }));
      await call("PATCH", `/v1/posts/${p.id}?locale=fr`, translation("p-fr", { unpublishAt: later }));
      await call("PATCH", `/v1/posts/${p.id}?locale=it`, translation("p-it", { publishedAt: later }));
      for (let n = 0; n < 2; n++)
        instances.push(
          await startBackgroundWork(shared.config, shared.db, silentLogger, shared.mediaStorage),
        );
      const publicRead = (path: string) => shared.request("GET", path, { key: ws.publicKey });
      expect((await publicRead("/v1/posts/p-de?locale=de&fallback=none")).status).toBe(404);
      expect((await publicRead("/v1/posts/p-fr?locale=fr&fallback=none")).status).toBe(200);

      const due = inFuture(4_000);
      await call("PATCH", `/v1/posts/${p.id}?locale=de`, { publishedAt: due });
      await call("PATCH", `/v1/posts/${p.id}?locale=fr`, { unpublishAt: due });
      // A scheduled unpublish of a translation that is then removed, and one scheduled to publish.
      await call("PATCH", `/v1/posts/${p.id}?locale=it`, { publishedAt: due });
      await call("DELETE", `/v1/posts/${p.id}?locale=it`);
      expect(Date.now(), "the writes took longer than the schedule ahead").toBeLessThan(Date.parse(due));

      const events = async () => {
        const res = await call(
          "GET",
          "/v1/events?types=post.published,post.unpublished,post.updated&limit=100",
        );
        return (res.events as StatusEvent[]).filter((event) => event.resourceId === p.id);
      };
      const statusOnly = async () =>
        statusEvents(
          (await events()).filter((event) => event.type !== "post.updated"),
          p.id,
        ).sort();
      const before = await statusOnly();
      expect(before).toEqual(["post.published default", "post.published fr"]);
      const expected = [...before, "post.published de", "post.unpublished fr"].sort();
      const deadline = Date.now() + 15_000;
      while ((await statusOnly()).length < expected.length && Date.now() < deadline) await sleep(100);
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(due));
      await sleep(1_500);
      expect(await statusOnly()).toEqual(expected);
      // `it` was saved, rescheduled and removed: three post.updated, never published.
      const italian = (await events()).filter((event) => event.data.locale === "it");
      expect(italian.map((event) => event.type)).toEqual(["post.updated", "post.updated", "post.updated"]);

      expect((await publicRead("/v1/posts/p-de?locale=de&fallback=none")).status).toBe(200);
      expect((await publicRead("/v1/posts/p-fr?locale=fr&fallback=none")).status).toBe(404);
      expect((await publicRead("/v1/posts/p-it?locale=it&fallback=none")).status).toBe(404);
      const german = await publicRead("/v1/posts/p-de?locale=de&fallback=none");
      expect(german.body.post.availableLocales).toEqual(["en", "de"]);
      const french = await shared.request("GET", `/v1/posts/${p.id}?locale=fr&fallback=none&status=all`, {
        key: ws.privateKey,
      });
      expect(french.body.post).toMatchObject({ locale: "fr", status: "draft" });
    } finally {
      await Promise.all(instances.map((instance) => instance.stop(1_000)));
      await shared.close();
    }
  }, 60_000);
});

describe.skipIf(storageMode !== "postgres")(
  "hard case 5 on two server processes (PostgreSQL + Redis)",
  () => {
    it("de published and fr unpublished at one moment: one event and one delivery each; a deleted translation never appears", async () => {
      const group = instanceGroup("unpublish");
      groups.push(group);
      const a = await group.start(ENV);
      const b = await group.start(ENV);
      const hook = await receiver();
      const ws = await adminWorkspace(a, "Two processes, publish and unpublish");
      const call = async (
        instance: Instance,
        method: string,
        path: string,
        body?: unknown,
        key = ws.privateKey,
      ) => {
        const res = await fetch(`${instance.url}${path}`, {
          method,
          headers: { authorization: key, "content-type": "application/json" },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const json = res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
        return { status: res.status, body: json as Answer };
      };
      const ok = async (instance: Instance, method: string, path: string, body?: unknown) => {
        const res = await call(instance, method, path, body);
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        return res.body;
      };
      for (const code of ["de", "fr", "it"]) await ok(a, "POST", "/v1/locales", { code });
      await ok(a, "POST", "/v1/webhooks", { url: hook.url, events: ["post.published", "post.unpublished"] });
      const category = await ok(a, "POST", "/v1/categories", { name: "News", slug: "news" });
      const created = await ok(b, "POST", "/v1/posts", {
        title: "P",
        slug: "p-en",
        content: "<p>p</p>",
        description: "p",
        categoryId: category.category.id,
        status: "published",
      });
      const postId = created.post.id as string;
      const due = inFuture(5_000);
      await ok(a, "PATCH", `/v1/posts/${postId}?locale=fr`, translation("p-fr"));
      await ok(b, "PATCH", `/v1/posts/${postId}?locale=de`, translation("p-de", { publishedAt: due }));
      await ok(a, "PATCH", `/v1/posts/${postId}?locale=fr`, { unpublishAt: due });
      await ok(b, "PATCH", `/v1/posts/${postId}?locale=it`, translation("p-it", { publishedAt: due }));
      await ok(a, "DELETE", `/v1/posts/${postId}?locale=it`);
      expect(Date.now(), "the writes took longer than the schedule ahead").toBeLessThan(Date.parse(due));
      for (const instance of [a, b]) {
        expect(
          (await call(instance, "GET", "/v1/posts/p-de?locale=de&fallback=none", undefined, ws.publicKey))
            .status,
        ).toBe(404);
        expect(
          (await call(instance, "GET", "/v1/posts/p-fr?locale=fr&fallback=none", undefined, ws.publicKey))
            .status,
        ).toBe(200);
      }

      const statusOnly = async () => {
        const res = await ok(a, "GET", "/v1/events?types=post.published,post.unpublished&limit=100");
        return statusEvents(res.events, postId).sort();
      };
      const expected = [
        "post.published de",
        "post.published default",
        "post.published fr",
        "post.unpublished fr",
      ];
      const deadline = Date.now() + 15_000;
      while ((await statusOnly()).length < expected.length && Date.now() < deadline) await sleep(100);
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(due));
      await sleep(1_500);
      expect(await statusOnly()).toEqual(expected);
      await hook.waitFor((got) => got.length >= expected.length, 10_000);
      await sleep(500);
      expect(hook.received.map((r) => `${r.json.type} ${r.json.data.locale ?? "default"}`).sort()).toEqual(
        expected,
      );

      for (const instance of [a, b]) {
        const read = (path: string) => call(instance, "GET", path, undefined, ws.publicKey);
        expect((await read("/v1/posts/p-de?locale=de&fallback=none")).status).toBe(200);
        expect((await read("/v1/posts/p-fr?locale=fr&fallback=none")).status).toBe(404);
        expect((await read("/v1/posts/p-it?locale=it&fallback=none")).status).toBe(404);
        const italian = await read("/v1/posts?locale=it&fallback=none");
        expect(italian.body.pagination.totalItems).toBe(0);
      }
    }, 90_000);
  },
);
