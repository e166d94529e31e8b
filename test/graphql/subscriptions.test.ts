// GraphQL subscriptions over SSE: `contentChanged` delivers the change log's events after commit, with
// the reads' visibility (a public key never sees a draft), ends cleanly when the service stops, and a
// subscriber that stops reading is dropped instead of buffered (the stream's queue is bounded).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event } from "../../src/generated/prisma/client.ts";
import {
  ChangeStream,
  type ChangeStreamSource,
  type StreamItem,
} from "../../src/graphql/live/change-stream.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Live");
});
afterAll(() => app?.close());

const CHANGES = "subscription { contentChanged { type resourceId slug data } }";
type Change = { type: string; resourceId: string; slug: string | null; data: Record<string, unknown> };
const changesOf = (received: { data?: Record<string, unknown> }[]) =>
  received.map((r) => r.data?.contentChanged as Change);

describe("contentChanged over SSE", () => {
  it("delivers every change to a private subscriber, after commit, in log order", async () => {
    const live = await subscribe(app.url, ws.privateKey, CHANGES);
    try {
      const f = restFixtures(app, ws.privateKey);
      const tag = await f.tag("live-tag");
      await app.request("PATCH", `/v1/tags/${tag.id}`, { key: ws.privateKey, body: { name: "Live!" } });
      await app.request("DELETE", `/v1/tags/${tag.id}`, { key: ws.privateKey });
      await live.waitFor((r) => r.length === 3);
      expect(changesOf(live.received).map((c) => [c.type, c.slug])).toEqual([
        ["tag.created", "live-tag"],
        ["tag.updated", "live-tag"],
        ["tag.deleted", "live-tag"],
      ]);
      expect(changesOf(live.received)[1]?.data).toMatchObject({ name: "Live!" });
    } finally {
      live.close();
    }
  });

  it("never shows a public subscriber a draft; a post leaving public view arrives as id and slug", async () => {
    const publicLive = await subscribe(app.url, ws.publicKey, CHANGES);
    const privateLive = await subscribe(app.url, ws.privateKey, CHANGES);
    try {
      const f = restFixtures(app, ws.privateKey);
      const category = await f.category("live-news");
      const post = await f.post({ slug: "live-draft", categoryId: category.id, status: "draft" });
      await app.request("PATCH", `/v1/posts/${post.id}`, {
        key: ws.privateKey,
        body: { title: "Still a draft" },
      });
      await app.request("PATCH", `/v1/posts/${post.id}`, {
        key: ws.privateKey,
        body: { status: "published" },
      });
      await app.request("PATCH", `/v1/posts/${post.id}`, { key: ws.privateKey, body: { status: "draft" } });
      await privateLive.waitFor((r) => r.length === 7);
      await publicLive.waitFor((r) => r.length === 4);
      const seen = changesOf(publicLive.received);
      expect(seen.map((c) => c.type)).toEqual([
        "category.created",
        "post.updated",
        "post.published",
        "post.unpublished",
      ]);
      expect(seen.filter((c) => c.type.startsWith("post.")).map((c) => c.data.title ?? null)).toEqual([
        "Still a draft",
        "Still a draft",
        null,
      ]);
      expect(seen[3]?.data).toEqual({ id: post.id, slug: "live-draft" });
      expect(JSON.stringify(seen)).not.toContain('"status":"draft"');
    } finally {
      publicLive.close();
      privateLive.close();
    }
  });

  it("tells a public subscriber only of posts it could have read: nothing of a deleted draft or scheduled post", async () => {
    const space = await app.workspace("Live departures");
    const publicLive = await subscribe(app.url, space.publicKey, CHANGES);
    const privateLive = await subscribe(app.url, space.privateKey, CHANGES);
    try {
      const f = restFixtures(app, space.privateKey);
      const category = await f.category("launches");
      const draft = await f.post({
        slug: "secret-unannounced-product",
        categoryId: category.id,
        status: "draft",
      });
      const scheduled = await f.post({
        slug: "scheduled-launch",
        categoryId: category.id,
        publishedAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const shown = await f.post({ slug: "was-public", categoryId: category.id });
      const key = space.privateKey;
      for (const id of [draft.id, scheduled.id]) await app.request("DELETE", `/v1/posts/${id}`, { key });
      // Unpublished and renamed in one write: the new slug was never public.
      await app.request("PATCH", `/v1/posts/${shown.id}`, {
        key,
        body: { status: "draft", slug: "now-hidden" },
      });
      await app.request("DELETE", `/v1/posts/${shown.id}`, { key });
      // category, 3 creates, post.published of the public one, 2 deletes, update + unpublish, delete.
      await privateLive.waitFor((r) => r.length === 10);
      await publicLive.waitFor((r) =>
        r.some((c) => (c.data?.contentChanged as Change)?.type === "post.unpublished"),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const seen = changesOf(publicLive.received);
      const text = JSON.stringify(seen);
      for (const secret of [
        draft.id,
        scheduled.id,
        "secret-unannounced-product",
        "scheduled-launch",
        "now-hidden",
      ])
        expect(text).not.toContain(secret);
      expect(seen.map((c) => c.type)).toEqual([
        "category.created",
        "post.created",
        "post.published",
        "post.unpublished",
      ]);
      expect(seen[3]).toMatchObject({ slug: "was-public", data: { id: shown.id, slug: "was-public" } });
      // A private subscriber still hears every departure as it happened.
      expect(changesOf(privateLive.received).filter((c) => c.type === "post.deleted")).toHaveLength(3);
    } finally {
      publicLive.close();
      privateLive.close();
    }
  });

  it("filters by types and keeps workspaces apart", async () => {
    const other = await app.workspace("Other live");
    const live = await subscribe(
      app.url,
      ws.privateKey,
      'subscription { contentChanged(types: ["tag.created"]) { type slug } }',
    );
    try {
      await restFixtures(app, other.privateKey).tag("elsewhere");
      await restFixtures(app, ws.privateKey).category("not-a-tag");
      await restFixtures(app, ws.privateKey).tag("wanted");
      await live.waitFor((r) => r.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(live.received.map((r) => r.data?.contentChanged)).toEqual([
        { type: "tag.created", slug: "wanted" },
      ]);
    } finally {
      live.close();
    }
  });
});

describe("the stream is bounded", () => {
  function event(position: number): Event {
    return {
      id: `evt_${position}`,
      position: BigInt(position),
      workspaceId: "w",
      keepsListings: false,
      locales: [],
      publicLocales: [],
      type: "tag.created",
      resourceId: `t${position}`,
      slug: null,
      data: {},
      createdAt: new Date(),
    };
  }

  function source(
    log: Event[],
    revoked = new Set<string>(),
  ): ChangeStreamSource & { keysChanged?: () => void } {
    const src: ChangeStreamSource & { keysChanged?: () => void } = {
      head: async () => 0n,
      after: async (position, limit) => log.filter((e) => e.position > position).slice(0, limit),
      listen: async () => async () => {},
      listenForKeyChanges: async (onChange) => {
        src.keysChanged = onChange;
        return async () => {};
      },
      keyEnds: async (keyIds) => ({
        ended: new Map(keyIds.filter((id) => revoked.has(id)).map((id) => [id, "API_KEY_REVOKED" as const])),
        nextEndAt: null,
      }),
    };
    return src;
  }
  const owner = (keyId: string) => ({ workspaceId: "w", keyId });

  it("ends a subscriber that stops reading once its queue is full, and keeps serving the others", async () => {
    const log: Event[] = [];
    const stream = new ChangeStream(source(log), { maxQueued: 10 });
    const endedBecause: string[] = [];
    const slow = await stream.subscribe(owner("k1"), (e) => e, {
      onEndedByService: (reason) => endedBecause.push(reason),
    });
    const reader = await stream.subscribe(owner("k2"), (e) => e);
    const read: string[] = [];
    const reading = (async () => {
      for await (const e of reader) {
        read.push((e as Event).id);
        if (read.length === 25) break;
      }
    })();
    for (let i = 1; i <= 25; i++) {
      log.push(event(i));
      stream.wake();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await reading;
    expect(read).toHaveLength(25);
    // The slow one is ended, its queue dropped: what it still reads is the end, naming the reason.
    const drained: StreamItem[] = [];
    for await (const item of slow) drained.push(item);
    expect(drained).toEqual([{ endedBecause: "SUBSCRIBER_TOO_SLOW" }]);
    expect(endedBecause).toEqual(["SUBSCRIBER_TOO_SLOW"]);
    expect(stream.subscriberCount).toBe(0);
    await stream.close();
  });

  it("refuses a key's subscription past its cap, and any past the instance's cap", async () => {
    const stream = new ChangeStream(source([]), { maxPerKey: 2, maxPerInstance: 3 });
    const first = await stream.subscribe(owner("k1"), (e) => e);
    await stream.subscribe(owner("k1"), (e) => e);
    await expect(stream.subscribe(owner("k1"), (e) => e)).rejects.toMatchObject({ scope: "key", limit: 2 });
    await stream.subscribe(owner("k2"), (e) => e);
    await expect(stream.subscribe(owner("k3"), (e) => e)).rejects.toMatchObject({
      scope: "instance",
      limit: 3,
    });
    // A closed subscription frees its place.
    await first.return?.();
    await stream.subscribe(owner("k3"), (e) => e);
    expect(stream.subscriberCount).toBe(3);
    await stream.close();
  });

  it("ends every subscription of a key that was revoked, with the reason as its last item", async () => {
    const log: Event[] = [];
    const revoked = new Set<string>();
    const src = source(log, revoked);
    const stream = new ChangeStream(src);
    const a = await stream.subscribe(owner("revoked"), (e) => e);
    const b = await stream.subscribe(owner("revoked"), (e) => e);
    const other = await stream.subscribe(owner("kept"), (e) => e);
    revoked.add("revoked");
    src.keysChanged?.();
    for (const subscription of [a, b]) {
      expect(await subscription.next()).toEqual({ value: { endedBecause: "API_KEY_REVOKED" }, done: false });
      expect(await subscription.next()).toEqual({ value: undefined, done: true });
    }
    log.push(event(1));
    stream.wake();
    expect(await other.next()).toMatchObject({ value: { id: "evt_1" }, done: false });
    expect(stream.subscriberCount).toBe(1);
    await stream.close();
  });

  it("ends a subscription opened with a key whose revocation it did not hear", async () => {
    // The request checked the key before the revocation committed; the stream checks it again.
    const stream = new ChangeStream(source([], new Set(["gone"])));
    const late = await stream.subscribe(owner("gone"), (e) => e);
    expect(await late.next()).toEqual({ value: { endedBecause: "API_KEY_REVOKED" }, done: false });
    await stream.close();
  });
});
