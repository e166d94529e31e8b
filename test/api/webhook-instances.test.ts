// Webhooks with several real service processes on one PostgreSQL: each event is sent once however many
// instances dispatch (leased claims), the per-endpoint cap holds for them together, and a process
// killed with SIGKILL in the middle of sending loses nothing — another instance sends what it held once
// its lease runs out.
import { afterAll, describe, expect, it } from "vitest";
import { adminWorkspace, type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const receivers: WebhookReceiver[] = [];
const groups: ReturnType<typeof instanceGroup>[] = [];
afterAll(async () => {
  await Promise.all(groups.map((group) => group.stop()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", RATE_LIMIT_AUTHENTICATED: "100000" };

async function subscribe(instance: Instance, key: string, url: string): Promise<string> {
  const res = await fetch(`${instance.url}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/json" },
    body: JSON.stringify({ url, events: ["tag.created"] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { webhook: { id: string } }).webhook.id;
}

async function createTags(instance: Instance, key: string, prefix: string, count: number): Promise<void> {
  // A few at a time per instance, as concurrent clients would.
  const lanes = 4;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; i < count; i += lanes) {
        const res = await fetch(`${instance.url}/v1/tags`, {
          method: "POST",
          headers: { authorization: key, "content-type": "application/json" },
          body: JSON.stringify({ name: `${prefix} ${i}`, slug: `${prefix}-${i}` }),
        });
        expect(res.status).toBe(201);
      }
    }),
  );
}

/** The deliveries' statuses once `count` of them are settled (succeeded or failed), or after 10 s. */
async function settledStatuses(instance: Instance, key: string, endpointId: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const statuses = await deliveryStatuses(instance, key, endpointId);
    const settled = statuses.filter((status) => status === "succeeded" || status === "failed");
    if (settled.length >= count || Date.now() > deadline) return statuses;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function deliveryStatuses(instance: Instance, key: string, endpointId: string): Promise<string[]> {
  const statuses: string[] = [];
  let after = "";
  for (;;) {
    const res = await fetch(`${instance.url}/v1/webhooks/${endpointId}/deliveries?limit=100${after}`, {
      headers: { authorization: key },
    });
    const page = (await res.json()) as {
      deliveries: { status: string }[];
      nextCursor: string;
      hasMore: boolean;
    };
    statuses.push(...page.deliveries.map((delivery) => delivery.status));
    if (!page.hasMore) return statuses;
    after = `&after=${page.nextCursor}`;
  }
}

describe.skipIf(storageMode !== "postgres")("webhooks across instances", () => {
  it("two instances writing 200 events each deliver every event exactly once", async () => {
    const group = instanceGroup("webhooks-once");
    groups.push(group);
    const a = await group.start(ENV);
    const b = await group.start(ENV);
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    const ws = await adminWorkspace(a, "Two instances");
    const endpointId = await subscribe(a, ws.privateKey, hook.url);

    await Promise.all([createTags(a, ws.privateKey, "a", 200), createTags(b, ws.privateKey, "b", 200)]);
    await hook.waitFor((got) => new Set(got.map((r) => r.json.id)).size === 400, 30_000);
    // Anything sent twice would arrive right behind: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = hook.received.map((r) => r.json.id);
    expect(ids).toHaveLength(400);
    expect(new Set(ids).size).toBe(400);
    const slugs = new Set(hook.received.map((r) => r.json.data.slug));
    for (const prefix of ["a", "b"])
      for (let i = 0; i < 200; i++) expect(slugs.has(`${prefix}-${i}`), `${prefix}-${i}`).toBe(true);
    const statuses = await settledStatuses(b, ws.privateKey, endpointId, 400);
    expect(statuses).toHaveLength(400);
    expect(statuses.every((status) => status === "succeeded")).toBe(true);
    // Two instances to start, 400 writes and a wait of up to 30 s for the deliveries: more than the
    // default test timeout on a busy machine (it ran out there once in CI, its steps all on their way).
  }, 90_000);

  it("two instances keep to an endpoint's cap of deliveries in flight together", async () => {
    const group = instanceGroup("webhooks-cap");
    groups.push(group);
    const env = { ...ENV, WEBHOOK_ENDPOINT_CONCURRENCY: "3" };
    const a = await group.start(env);
    const b = await group.start(env);
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    // The receiver holds each request 300 ms and counts how many it holds at once.
    let open = 0;
    let mostOpen = 0;
    hook.respond((_r, res) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open -= 1;
        res.end("ok");
      }, 300);
    });
    const ws = await adminWorkspace(a, "Capped");
    const endpointId = await subscribe(a, ws.privateKey, hook.url);
    await Promise.all([createTags(a, ws.privateKey, "a", 15), createTags(b, ws.privateKey, "b", 15)]);
    await hook.waitFor((got) => new Set(got.map((r) => r.json.id)).size === 30, 30_000);
    const statuses = await settledStatuses(b, ws.privateKey, endpointId, 30);
    expect(statuses.every((status) => status === "succeeded")).toBe(true);
    expect(hook.received).toHaveLength(30);
    // The cap counts both instances' leases; two claims at the same moment may each take a cap's worth
    // (webhook-delivery-store.ts), never more. Uncapped, each instance would send 16 at once.
    expect(mostOpen).toBeGreaterThanOrEqual(3);
    expect(mostOpen).toBeLessThanOrEqual(6);
  }, 60_000);

  it("a process killed with SIGKILL while sending loses nothing: another instance sends after the lease", async () => {
    const group = instanceGroup("webhooks-kill");
    groups.push(group);
    // A 1.5 s deadline makes a 4.5 s lease.
    const env = { ...ENV, WEBHOOK_TIMEOUT_MS: "1500" };
    const a = await group.start(env);
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    // The receiver holds every request: A's attempts are in flight when it dies.
    let holding = true;
    hook.respond((_r, res) => {
      if (!holding) res.end("ok");
    });
    const ws = await adminWorkspace(a, "Killed");
    const endpointId = await subscribe(a, ws.privateKey, hook.url);
    await createTags(a, ws.privateKey, "k", 20);
    await hook.waitFor((got) => got.length >= 1, 10_000);
    a.process.kill("SIGKILL");
    await new Promise((resolve) => a.process.once("exit", resolve));
    const killedAt = performance.now();

    holding = false;
    const b = await group.start(env);
    await hook.waitFor(
      (got) => new Set(got.filter((r) => r.receivedAt > killedAt).map((r) => r.json.id)).size === 20,
      30_000,
    );
    // The receiver has every event; each attempt is recorded moments after its answer came back.
    const statuses = await settledStatuses(b, ws.privateKey, endpointId, 20);
    expect(statuses).toHaveLength(20);
    expect(statuses.every((status) => status === "succeeded")).toBe(true);
  }, 90_000);
});
