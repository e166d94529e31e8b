// Deleting a webhook endpoint (or its workspace) while one of its deliveries is in flight is a normal
// user action: the attempt that ends afterwards has no delivery left to be recorded against. It is
// dropped quietly — no error-level log, no failed batch — and the attempts that ended beside it, for
// endpoints that still exist, are recorded as usual.

import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type BackgroundWork, startBackgroundWork } from "../../src/bootstrap.ts";
import type { Logger } from "../../src/logger.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

let app: TestApp;
let background: BackgroundWork;
const logged: { level: string; message: string; data?: Record<string, unknown> }[] = [];
const receivers: WebhookReceiver[] = [];

/** A logger that keeps every line, so a test can say which levels a normal action may reach. */
const recordingLogger: Logger = {
  debug: (message, data) => logged.push({ level: "debug", message, data }),
  info: (message, data) => logged.push({ level: "info", message, data }),
  warn: (message, data) => logged.push({ level: "warn", message, data }),
  error: (message, data) => logged.push({ level: "error", message, data }),
};

beforeAll(async () => {
  app = await startTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_TIMEOUT_MS: "2000", WEBHOOK_RETRY_SCHEDULE: "5s" },
  });
  background = await startBackgroundWork(app.config, app.db, recordingLogger, app.mediaStorage);
});
beforeEach(() => {
  logged.length = 0;
});
afterAll(async () => {
  await background?.stop(1_000);
  await app?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

function send(ws: TestWorkspace, method: string, path: string, body?: unknown) {
  return app.request(method, path, { key: ws.privateKey, body });
}

async function endpoint(ws: TestWorkspace, url: string, events = ["*"]): Promise<string> {
  const res = await send(ws, "POST", "/v1/webhooks", { url, events });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.id as string;
}

/** A port nothing listens on (the reproduction): the attempt fails at once with ECONNREFUSED. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function errorsLogged() {
  return logged.filter((line) => line.level === "error");
}

describe("deleting a webhook endpoint while a delivery is in flight", () => {
  it("drops the attempt quietly when the endpoint is deleted at once after POST …/test (closed port)", async () => {
    const ws = await app.workspace("Deleted at once");
    const port = await closedPort();
    for (let round = 0; round < 3; round += 1) {
      const id = await endpoint(ws, `http://127.0.0.1:${port}/gone`);
      const test = await send(ws, "POST", `/v1/webhooks/${id}/test`);
      expect(test.status).toBe(202);
      const deleted = await send(ws, "DELETE", `/v1/webhooks/${id}`);
      expect(deleted.status).toBe(200);
    }
    // Long enough for every attempt to end and its batch to be recorded (20 ms after it ends).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(errorsLogged()).toEqual([]);
    expect(await app.db.prisma.webhookAttempt.count({ where: { delivery: { workspaceId: ws.id } } })).toBe(0);
  });

  it("records the attempts that ended beside it, for endpoints that still exist", async () => {
    const ws = await app.workspace("Deleted in flight");
    // The doomed endpoint's receiver holds every request until the test has deleted the endpoint.
    const held: Socket[] = [];
    const holding = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => holding.listen(0, "127.0.0.1", resolve));
    const healthy = await startWebhookReceiver();
    receivers.push(healthy);
    // The healthy receiver answers only once the held request is released, so both attempts end together
    // and are recorded in one batch.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    healthy.respond((_r, res) => void released.then(() => res.end("ok")));
    try {
      const doomed = await endpoint(ws, `http://127.0.0.1:${(holding.address() as AddressInfo).port}/hold`);
      const kept = await endpoint(ws, healthy.url);
      await restFixtures(app, ws.privateKey).tag("in-flight");
      await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), { timeout: 5_000 });
      await healthy.waitFor((r) => r.length === 1);

      expect((await send(ws, "DELETE", `/v1/webhooks/${doomed}`)).status).toBe(200);
      // The doomed attempt ends (its connection drops) and the healthy one answers together.
      for (const socket of held) socket.destroy();
      release();

      await vi.waitFor(
        async () => {
          const list = await send(ws, "GET", `/v1/webhooks/${kept}/deliveries`);
          expect(list.body.deliveries[0]).toMatchObject({
            status: "succeeded",
            attempts: [expect.objectContaining({ statusCode: 200, responseBody: "ok" })],
          });
        },
        { timeout: 5_000, interval: 50 },
      );
      expect(errorsLogged()).toEqual([]);
      expect(await app.db.prisma.webhookDelivery.count({ where: { endpointId: doomed } })).toBe(0);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => holding.close(() => resolve()));
    }
  });

  it("drops the attempt quietly when the whole workspace is deleted meanwhile", async () => {
    const ws = await app.workspace("Workspace deleted in flight");
    const held: Socket[] = [];
    const holding = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => holding.listen(0, "127.0.0.1", resolve));
    try {
      await endpoint(ws, `http://127.0.0.1:${(holding.address() as AddressInfo).port}/hold`);
      await restFixtures(app, ws.privateKey).tag("in-flight");
      await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), { timeout: 5_000 });
      await app.db.prisma.workspace.delete({ where: { id: ws.id } });
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(errorsLogged()).toEqual([]);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => holding.close(() => resolve()));
    }
  });
});
