// A minimal app shaped like the real one: a valid API key draws on its own budget, anything else
// (no key, unknown key) on its client address's.
import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { clientAddressKey } from "../../../src/limits/rate-budgets.ts";
import { rateLimit } from "../../../src/limits/rate-limit-middleware.ts";
import type { RateLimiter } from "../../../src/limits/rate-limiter.ts";

export const AUTHENTICATED_LIMIT = 200;
export const UNAUTHENTICATED_LIMIT = 10;
export const WINDOW_MS = 10_000;

const API_KEYS = new Map([
  ["secret-a", "key-a"],
  ["secret-b", "key-b"],
]);

export interface TestApp {
  url: string;
  /** How many requests reached the route handler. */
  handled(): number;
  close(): Promise<void>;
}

export async function startApp(limiter: RateLimiter): Promise<TestApp> {
  let handled = 0;
  const app = express();
  // Tests send X-Forwarded-For over loopback to appear as different clients.
  app.set("trust proxy", "loopback");
  app.use(
    rateLimit({
      limiter,
      identify: (req) => {
        const keyId = API_KEYS.get(req.get("x-api-key") ?? "");
        return keyId
          ? { key: `key:${keyId}`, limit: AUTHENTICATED_LIMIT }
          : { key: clientAddressKey(req), limit: UNAUTHENTICATED_LIMIT };
      },
    }),
  );
  app.get("/v1/posts", (_req, res) => {
    handled++;
    res.json({ data: [] });
  });

  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/posts`,
    handled: () => handled,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // fetch keeps connections alive; without this close() would wait for them to idle out.
    server.closeAllConnections();
  });
}

export interface Sent {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function send(url: string, headers: Record<string, string> = {}): Promise<Sent> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Sends `count` requests, `concurrency` at a time, as a burst of clients would. */
export async function sendMany(
  count: number,
  target: (i: number) => [url: string, headers?: Record<string, string>],
  concurrency = 50,
): Promise<Sent[]> {
  const results: Sent[] = [];
  for (let start = 0; start < count; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - start) }, (_, j) =>
      send(...target(start + j)),
    );
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

export function header(sent: Sent, name: string): number {
  const value = sent.headers.get(name);
  if (value === null || !/^\d+$/.test(value)) throw new Error(`header ${name} is ${value}`);
  return Number(value);
}
