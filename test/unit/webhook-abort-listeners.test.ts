// Issue #37 item 7: "MaxListenersExceededWarning: 11 abort listeners added to [AbortSignal]". The one
// AbortSignal the service shares between many operations is the webhook dispatcher's shutdown signal:
// every attempt in flight listens to it (sender.ts). Each attempt must take its listener off when it
// ends — answered, refused, timed out or unreachable — or a long-running instance collects one per
// delivery and Node warns past ten. Many attempts on one signal here: no warning, and no listener left.
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook } from "../../src/webhooks/sender.ts";

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
