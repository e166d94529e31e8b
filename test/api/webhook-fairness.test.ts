// One workspace's failing receivers cannot starve another workspace's webhooks (issue 36, item 3):
// workspace A has 50 endpoints whose receivers accept the connection and never answer, workspace B one
// healthy endpoint. While A writes a stream of events, B's events still arrive within 2 s (p99), because
// deliveries in flight are capped per endpoint and per workspace and a failing endpoint backs off
// without holding slots.

import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const SILENT_ENDPOINTS = 50;
const A_EVENTS = 40;
const B_EVENTS = 10;

let app: TestApp;
const silent: { server: Server; sockets: Socket[] }[] = [];
let healthy: WebhookReceiver;

beforeAll(async () => {
  app = await startTestApp({
    background: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_TIMEOUT_MS: "1000",
      WEBHOOK_RETRY_SCHEDULE: "500ms,1s,2s,4s",
    },
  });
  healthy = await startWebhookReceiver();
});
afterAll(async () => {
  await app?.close();
  await healthy?.close();
  for (const { server, sockets } of silent) {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A receiver that accepts connections and never answers: every attempt to it runs into the timeout. */
async function silentReceiver(): Promise<string> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  silent.push({ server, sockets });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/never`;
}

async function subscribe(ws: TestWorkspace, url: string): Promise<string> {
  const res = await app.request("POST", "/v1/webhooks", { key: ws.privateKey, body: { url, events: ["*"] } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.id as string;
}

async function createTag(ws: TestWorkspace, slug: string): Promise<string> {
  const res = await app.request("POST", "/v1/tags", { key: ws.privateKey, body: { name: slug, slug } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.tag.id as string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

describe("fairness between workspaces", () => {
  it("keeps B's p99 delivery under 2 s while A's 50 endpoints never answer", {
    timeout: 90_000,
  }, async () => {
    const a = await app.workspace("A: silent receivers");
    const b = await app.workspace("B: one healthy receiver");
    for (let i = 0; i < SILENT_ENDPOINTS; i += 1) await subscribe(a, await silentReceiver());
    await subscribe(b, healthy.url);

    // A writes a stream of events (50 deliveries each); B writes one event every 300 ms meanwhile.
    const writtenAt = new Map<string, number>();
    const aWrites = (async () => {
      for (let i = 0; i < A_EVENTS; i += 1) await createTag(a, `a-${i}`);
    })();
    for (let i = 0; i < B_EVENTS; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const id = await createTag(b, `b-${i}`);
      writtenAt.set(id, performance.now());
    }
    await aWrites;

    // Waits up to 30 s: an undelivered event counts as never delivered (Infinity).
    await healthy
      .waitFor((got) => got.filter((r) => r.json.type === "tag.created").length >= B_EVENTS, 30_000)
      .catch(() => undefined);
    const latencies = [...writtenAt].map(([id, at]) => {
      const got = healthy.received.find((r) => r.json.type === "tag.created" && r.json.data.id === id);
      return got ? Math.max(0, got.receivedAt - at) : Number.POSITIVE_INFINITY;
    });
    const sorted = [...latencies].sort((x, y) => x - y);
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    console.log(
      `B's deliveries while A's ${SILENT_ENDPOINTS} endpoints never answer: p50 ${Math.round(p50)} ms, p99 ${Math.round(p99)} ms, delivered ${latencies.filter(Number.isFinite).length}/${B_EVENTS}`,
    );
    expect(latencies.every(Number.isFinite)).toBe(true);
    expect(p99).toBeLessThan(2_000);
  });
});
