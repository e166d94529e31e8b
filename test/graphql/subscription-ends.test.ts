// A subscription belongs to the key that opened it and is bounded like any other use of a key: revoking
// the key ends its open streams at once with a last error event that names the reason, a key holds at
// most SUBSCRIPTION_MAX_PER_KEY streams (429 past it), and an instance at most
// SUBSCRIPTION_MAX_PER_INSTANCE. (Across real instances: subscription-instances.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listKeys, revokeKey } from "../../src/auth/api-keys.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { type SseSubscription, subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { SUBSCRIPTION_MAX_PER_KEY: "3", SUBSCRIPTION_MAX_PER_INSTANCE: "6" } });
});
afterAll(() => app?.close());

// Content events only: the revocation's own audit event (api_key.revoked) may come before or after the end.
const QUERY = 'subscription { contentChanged(types: ["tag.created"]) { type slug } }';

async function keyIdOf(workspaceId: string, kind: "public" | "private"): Promise<string> {
  const key = (await listKeys(app.db.prisma, workspaceId)).find((k) => k.kind === kind);
  if (!key) throw new Error(`no ${kind} key`);
  return key.id;
}

function openSubscription(key: string): Promise<Response> {
  return fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query: QUERY }),
  });
}

describe("revoking a key ends its subscriptions", () => {
  it("each open stream of the key gets a last UNAUTHENTICATED event within 1 s and completes; others go on", async () => {
    const ws = await app.workspace("Revoked subscriber");
    const other = await app.workspace("Unrelated subscriber");
    const streams = [
      await subscribe(app.url, ws.privateKey, QUERY),
      await subscribe(app.url, ws.privateKey, QUERY),
    ];
    const publicStream = await subscribe(app.url, ws.publicKey, QUERY);
    const otherStream = await subscribe(app.url, other.privateKey, QUERY);
    try {
      await restFixtures(app, ws.privateKey).tag("before");
      await streams[0]?.waitFor((r) => r.length === 1);

      const revokedAt = performance.now();
      await revokeKey(app.db.prisma, await keyIdOf(ws.id, "private"));
      for (const stream of streams) {
        await stream.waitFor((r) => r.length === 2, 1_000);
        await waitUntil(() => stream.completed() && stream.ended(), 1_000);
        expect(stream.received[1]).toEqual({
          data: null,
          errors: [
            expect.objectContaining({
              message: "The API key of this subscription was revoked; the subscription has ended",
              extensions: expect.objectContaining({ code: "UNAUTHENTICATED", reason: "API_KEY_REVOKED" }),
            }),
          ],
        });
      }
      console.log(`revoked key's streams ended after ${Math.round(performance.now() - revokedAt)} ms`);

      // The workspace's other key and other workspaces keep their streams.
      await restFixtures(app, other.privateKey).tag("after");
      await otherStream.waitFor((r) => r.length === 1);
      expect(publicStream.completed()).toBe(false);
      expect(app.changes.subscriberCount).toBe(2);
      // And the revoked key can open no new one.
      expect((await openSubscription(ws.privateKey)).status).toBe(401);
    } finally {
      for (const stream of [...streams, publicStream, otherStream]) stream.close();
    }
  });
});

describe("subscriptions are capped", () => {
  it("per key: past SUBSCRIPTION_MAX_PER_KEY a new one answers 429 RATE_LIMITED; closing one frees its place", async () => {
    const ws = await app.workspace("Capped key");
    const open: SseSubscription[] = [];
    try {
      for (let i = 0; i < 3; i++) open.push(await subscribe(app.url, ws.publicKey, QUERY));
      const refused = await openSubscription(ws.publicKey);
      expect(refused.status).toBe(429);
      expect((await firstEventOf(refused)).errors[0]).toMatchObject({
        extensions: { code: "RATE_LIMITED", reason: "TOO_MANY_SUBSCRIPTIONS", limit: 3 },
      });
      // The workspace's other key has places of its own.
      open.push(await subscribe(app.url, ws.privateKey, QUERY));
      open.shift()?.close();
      await waitUntil(() => app.changes.subscriberCount === 3, 2_000);
      open.push(await subscribe(app.url, ws.publicKey, QUERY));
    } finally {
      for (const stream of open) stream.close();
      await waitUntil(() => app.changes.subscriberCount === 0, 2_000);
    }
  });

  it("per instance: past SUBSCRIPTION_MAX_PER_INSTANCE any key's new one answers 429", async () => {
    const open: SseSubscription[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const ws = await app.workspace(`Instance cap ${i}`);
        open.push(
          await subscribe(app.url, ws.publicKey, QUERY),
          await subscribe(app.url, ws.privateKey, QUERY),
        );
      }
      const late = await app.workspace("Instance cap late");
      const refused = await openSubscription(late.publicKey);
      expect(refused.status).toBe(429);
      expect((await firstEventOf(refused)).errors[0].extensions).toMatchObject({ limit: 6 });
    } finally {
      for (const stream of open) stream.close();
      await waitUntil(() => app.changes.subscriberCount === 0, 2_000);
    }
  });
});

/** The refusal comes as the client asked for it, an event stream: its one `next` event's payload. */
async function firstEventOf(response: Response) {
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const data = (await response.text()).match(/event: next\ndata: (.*)\n/)?.[1];
  if (!data) throw new Error("no next event");
  return JSON.parse(data);
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
