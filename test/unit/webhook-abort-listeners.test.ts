// Issue #37 item 7: "MaxListenersExceededWarning: 11 abort listeners added to [AbortSignal]". The one
// AbortSignal the service shares between many operations is the webhook dispatcher's shutdown signal:
// every attempt in flight listens to it (sender.ts), so that a shutdown can cut attempts short. Two
// things keep that from warning:
// - each attempt takes its listener off when it ends — answered, refused, timed out or unreachable —
//   or a long-running instance would collect one per delivery (first test);
// - the signal's limit is the dispatcher's concurrency, not Node's default of ten: up to 64 attempts
//   (16 to one endpoint) are in flight at once, each with its listener (second test). The reporter's
//   server predates that limit (dispatcher.ts, setMaxListeners): a burst of writes with one endpoint
//   subscribed put 11 attempts in flight and Node printed exactly that warning, once per process.
//   (Node 20 and 22 limit an AbortSignal to ten listeners; Node 24 sets no limit and never warns.)
import { getEventListeners, getMaxListeners } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  type DeliveryStore,
  WebhookDispatcher,
} from "../../src/webhooks/dispatcher.ts";
import { sendWebhook } from "../../src/webhooks/sender.ts";
import { generateEndpointSecret } from "../../src/webhooks/signing.ts";

let receiver: Server;
let url: string;
beforeAll(async () => {
  // Answers by path: /ok 200, /fail 500, /slow never (the attempt's deadline ends it).
  receiver = createServer((req, res) => {
    if (req.url === "/slow") return;
    res.statusCode = req.url === "/ok" ? 200 : 500;
    res.end("done");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

describe("webhook attempts sharing one shutdown signal", () => {
  it("leave no abort listener behind and raise no MaxListenersExceededWarning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    const shutdown = new AbortController();
    const attempt = (path: string, timeoutMs = 2_000) =>
      sendWebhook({
        url: `${url}${path}`,
        body: "{}",
        headers: {},
        timeoutMs,
        policy: { allowPrivate: true },
        signal: shutdown.signal,
      });
    try {
      const results = [];
      // Far more than Node's default of ten listeners, in waves of eight at a time as a dispatcher runs them.
      for (let wave = 0; wave < 6; wave++) {
        results.push(
          ...(await Promise.all([
            attempt("/ok"),
            attempt("/ok"),
            attempt("/fail"),
            attempt("/fail"),
            attempt("/slow", 50),
            attempt("/slow", 50),
            attempt("/ok"),
            attempt("/fail"),
          ])),
        );
        expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
      }
      expect(results.map((result) => result.statusCode ?? "none")).toEqual(
        Array(6).fill([200, 200, 500, 500, "none", "none", 200, 500]).flat(),
      );
      // Let a warning emitted on this tick's end arrive before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("a dispatcher with more than ten attempts in flight at once", () => {
  it("raises no MaxListenersExceededWarning, and every attempt's listener is gone once they end", async () => {
    // The sender's keep-alive agent opens 16 sockets per host (the per-endpoint cap): all reach the
    // receiver together, which holds every answer until the last has arrived.
    const inFlight = 16;
    const held: ServerResponse[] = [];
    let allArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const holding = createServer((req, res) => {
      req.resume();
      held.push(res);
      if (held.length === inFlight) allArrived();
    });
    await new Promise<void>((resolve) => holding.listen(0, "127.0.0.1", resolve));
    const holdingUrl = `http://127.0.0.1:${(holding.address() as AddressInfo).port}`;

    const deliveries: ClaimedDelivery[] = Array.from({ length: inFlight }, (_, i) => ({
      id: `delivery-${i}`,
      endpointId: "endpoint",
      url: `${holdingUrl}/hook`,
      secrets: [generateEndpointSecret()],
      event: { id: `evt_${i}`, type: "post.published", body: "{}" },
      failedAttempts: 0,
      leaseUntil: new Date(Date.now() + 60_000),
    }));
    let claimed = false;
    const recorded: AttemptOutcome[] = [];
    const store: DeliveryStore = {
      // One claim round hands out every delivery; later rounds find none.
      async claim() {
        const out = claimed ? [] : deliveries;
        claimed = true;
        return { deliveries: out, nextDueAt: null, waitingForSlots: false };
      },
      async record(outcomes) {
        recorded.push(...outcomes);
      },
      async release() {},
    };
    let shutdownSignal: AbortSignal | undefined;
    const dispatcher = new WebhookDispatcher({
      store,
      send: (request) => {
        shutdownSignal = request.signal;
        return sendWebhook(request);
      },
      policy: { allowPrivate: true },
      timeoutMs: 10_000,
      recordBatchMs: 1,
    });

    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      dispatcher.wake();
      await arrived;
      // Every attempt is in flight, each listening to the one shutdown signal, whose limit allows them
      // (0: none; Node 24 sets no limit on an AbortSignal, Node 20 and 22 ten, and warn past it).
      expect(shutdownSignal).toBeDefined();
      expect(getEventListeners(shutdownSignal as AbortSignal, "abort")).toHaveLength(inFlight);
      const limit = getMaxListeners(shutdownSignal as AbortSignal);
      expect(limit === 0 || limit >= inFlight, `the signal's listener limit is ${limit}`).toBe(true);
      // Node's warning is emitted on a later tick than the listener that crossed the limit.
      await new Promise((resolve) => setImmediate(resolve));
      for (const res of held) res.end("ok");
      await dispatcher.stop(5_000);
      expect(recorded.map((outcome) => outcome.status)).toEqual(Array(inFlight).fill("succeeded"));
      expect(getEventListeners(shutdownSignal as AbortSignal, "abort")).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(
        warnings
          .filter((warning) => warning.name === "MaxListenersExceededWarning")
          .map((warning) => warning.message),
      ).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      holding.closeAllConnections();
      await new Promise((resolve) => holding.close(resolve));
    }
  });
});
