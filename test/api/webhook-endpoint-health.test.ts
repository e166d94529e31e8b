// A failing endpoint's health (issue 36, item 3): it backs off as a whole — its deliveries wait, one
// probe at a time, instead of each retrying on its own and holding a slot — and one that fails every
// attempt for WEBHOOK_DISABLE_AFTER (shrunk to 2 s here) is disabled: `enabled: false` with
// `disabledAt` and `disabledReason` on GET /v1/webhooks/{id} and the list, a `webhook.disabled` event in
// the change log that the workspace's other endpoints and private subscribers receive (public keys
// never see it), and PATCH enabled: true resumes it.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const RETRY_SCHEDULE_MS = [300, 600, 1_200];
let app: TestApp;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  app = await startTestApp({
    background: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE_MS.map((ms) => `${ms}ms`).join(","),
      WEBHOOK_TIMEOUT_MS: "1000",
      WEBHOOK_DISABLE_AFTER: "2s",
    },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(status = 200): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  started.respond((_r, res) => {
    res.statusCode = status;
    res.end(status === 200 ? "ok" : "down");
  });
  receivers.push(started);
  return started;
}

function send(ws: TestWorkspace, method: string, path: string, body?: unknown) {
  return app.request(method, path, { key: ws.privateKey, body });
}

async function subscribeEndpoint(ws: TestWorkspace, url: string, events: string[]): Promise<string> {
  const res = await send(ws, "POST", "/v1/webhooks", { url, events });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.id as string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("a failing endpoint backs off as a whole", () => {
  it("sends it one probe per back-off instead of every delivery's own retries", async () => {
    const ws = await app.workspace("Backing off");
    const failing = await receiver(503);
    const endpoint = await subscribeEndpoint(ws, failing.url, ["tag.created"]);
    // Eight deliveries due at once: events written while the endpoint was disabled, then replayed.
    await send(ws, "PATCH", `/v1/webhooks/${endpoint}`, { enabled: false });
    const tags = restFixtures(app, ws.privateKey);
    for (let i = 0; i < 8; i += 1) await tags.tag(`burst-${i}`);
    await send(ws, "PATCH", `/v1/webhooks/${endpoint}`, { enabled: true });
    expect((await send(ws, "POST", `/v1/webhooks/${endpoint}/replay`, {})).body).toMatchObject({
      replayed: 8,
    });
    await failing.waitFor((got) => got.length >= 8);
    const first = failing.received[0]?.receivedAt ?? 0;
    expect((failing.received[7]?.receivedAt ?? 0) - first).toBeLessThan(150);
    // Each delivery retrying on its own would send all 8 again about 300 ms after they failed. Backing
    // off as a whole after 8 failures in a row, the endpoint waits the schedule's last wait (1,200 ms)
    // before one probe.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const later = failing.received.filter((r) => r.receivedAt - first >= 150 && r.receivedAt - first < 1_000);
    expect(later).toHaveLength(0);

    // Its deliveries wait (pending or retrying), none given up, none lost.
    const list = await send(ws, "GET", `/v1/webhooks/${endpoint}/deliveries?limit=100`);
    expect(list.body.deliveries).toHaveLength(8);
    expect(list.body.deliveries.every((d: { status: string }) => d.status !== "failed")).toBe(true);

    // Neither is a manual retry ("sends it again now"): it ends the back-off, as one probe.
    const waiting = list.body.deliveries[0] as { id: string };
    const beforeRetry = failing.received.length;
    const retried = await send(ws, "POST", `/v1/webhooks/${endpoint}/deliveries/${waiting.id}/retry`);
    expect(retried.status).toBe(202);
    await failing.waitFor((got) => got.length > beforeRetry, 500);

    // A test event is not held back: a client checks a receiver it has just fixed.
    failing.respond((_r, res) => res.end("fixed"));
    const before = failing.received.length;
    const test = await send(ws, "POST", `/v1/webhooks/${endpoint}/test`);
    expect(test.status).toBe(202);
    await failing.waitFor((got) => got.slice(before).some((r) => r.json.type === "webhook.test"), 1_000);
    // The success ends the back-off: the waiting deliveries go out.
    await vi.waitFor(
      async () => {
        const now = await send(ws, "GET", `/v1/webhooks/${endpoint}/deliveries?limit=100`);
        const statuses = now.body.deliveries.map((d: { status: string; attempts: unknown[] }) => [
          d.status,
          d.attempts.length,
        ]);
        expect(
          statuses.filter(([status]: [string]) => status === "succeeded"),
          JSON.stringify(statuses),
        ).toHaveLength(9);
      },
      { timeout: 8_000, interval: 100 },
    );
  });
});

describe("an endpoint failing for WEBHOOK_DISABLE_AFTER", () => {
  it("is disabled with webhook.disabled, shows why on GET and the list, and PATCH enabled: true resumes it", async () => {
    const ws = await app.workspace("Disabled after failing");
    const failing = await receiver(500);
    const watcher = await receiver(200);
    const endpoint = await subscribeEndpoint(ws, failing.url, ["tag.created"]);
    const watching = await subscribeEndpoint(ws, watcher.url, ["webhook.disabled"]);
    const tags = restFixtures(app, ws.privateKey);

    // Events keep coming; every attempt fails; 2 s after the first failure the endpoint is disabled.
    const started = Date.now();
    let written = 0;
    await vi.waitFor(
      async () => {
        await tags.tag(`failing-${written++}`);
        const got = await send(ws, "GET", `/v1/webhooks/${endpoint}`);
        expect(got.body.webhook.enabled).toBe(false);
      },
      { timeout: 15_000, interval: 400 },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);

    const got = await send(ws, "GET", `/v1/webhooks/${endpoint}`);
    expect(got.body.webhook).toMatchObject({
      id: endpoint,
      enabled: false,
      disabledAt: expect.stringMatching(ISO),
      disabledReason: expect.stringMatching(/^Every delivery failed since before .+ \(for 2 seconds\)$/),
    });
    const listed = await send(ws, "GET", "/v1/webhooks");
    expect(listed.body.webhooks.find((w: { id: string }) => w.id === endpoint)).toEqual(got.body.webhook);

    // The workspace hears of it: the change log holds webhook.disabled, and the other endpoint gets it.
    const [event] = await watcher.waitFor((r) => r.some((x) => x.json.type === "webhook.disabled"), 5_000);
    expect(event?.json).toMatchObject({
      type: "webhook.disabled",
      workspaceId: ws.id,
      data: got.body.webhook,
    });
    expect(JSON.stringify(event?.json)).not.toContain("whsec_");
    const log = await send(ws, "GET", "/v1/events?types=webhook.disabled");
    expect(log.status).toBe(200);
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0]).toMatchObject({ type: "webhook.disabled", data: { id: endpoint } });

    // Disabled: nothing more is sent to it.
    const sentWhileDisabled = failing.received.length;
    await tags.tag("while-disabled");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(failing.received.length).toBe(sentWhileDisabled);

    // Enabled again, it starts afresh: the reason goes, and the next event is delivered.
    failing.respond((_r, res) => res.end("back"));
    const resumed = await send(ws, "PATCH", `/v1/webhooks/${endpoint}`, { enabled: true });
    expect(resumed.status).toBe(200);
    expect(resumed.body.webhook).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null });
    const tag = await tags.tag("after-resume");
    await failing.waitFor((r) => r.some((x) => x.json.data.id === tag.id), 5_000);
    expect(watcher.received.filter((r) => r.json.type === "webhook.disabled")).toHaveLength(1);
    expect(watching).not.toBe(endpoint);
  });

  it("records webhook.disabled for a 410 Gone too; private subscribers see it, public ones never", async () => {
    const ws = await app.workspace("Gone, heard");
    const gone = await receiver(410);
    const watcher = await receiver(200);
    const changes = "subscription { contentChanged { type resourceId } }";
    const publicLive = await subscribe(app.url, ws.publicKey, changes);
    const privateLive = await subscribe(app.url, ws.privateKey, changes);
    try {
      const endpoint = await subscribeEndpoint(ws, gone.url, ["tag.created"]);
      await subscribeEndpoint(ws, watcher.url, ["webhook.disabled"]);
      const tags = restFixtures(app, ws.privateKey);
      await tags.tag("gone");
      const [event] = await watcher.waitFor((r) => r.some((x) => x.json.type === "webhook.disabled"), 5_000);
      expect(event?.json.data).toMatchObject({
        id: endpoint,
        enabled: false,
        disabledReason: expect.stringMatching(/^The receiver answered 410 Gone/),
      });
      // A later write reaches both streams: everything before it has been through the filter.
      await tags.tag("after");
      const typesOf = (live: typeof publicLive) =>
        live.received.map((r) => (r.data?.contentChanged as { type: string } | undefined)?.type);
      await privateLive.waitFor((r) => r.length === 3);
      await publicLive.waitFor((r) => r.length === 2);
      expect(typesOf(privateLive)).toEqual(["tag.created", "webhook.disabled", "tag.created"]);
      expect(typesOf(publicLive)).toEqual(["tag.created", "tag.created"]);
    } finally {
      publicLive.close();
      privateLive.close();
    }
  });
});
