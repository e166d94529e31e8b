import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "../../src/limits/memory-rate-limiter.ts";
import { clientAddressKey } from "../../src/limits/rate-budgets.ts";
import { rateLimit } from "../../src/limits/rate-limit-middleware.ts";
import type { RateLimiter } from "../../src/limits/rate-limiter.ts";
import { httpContract } from "./support/http-contract.ts";

describe("rateLimit middleware with the in-memory store", () => {
  httpContract((windowMs) => new MemoryRateLimiter({ windowMs }));
});

describe("rateLimit middleware", () => {
  let server: ReturnType<express.Express["listen"]>;
  let base: string;
  const seenKeys: string[] = [];
  const failing: RateLimiter = {
    consume: async () => {
      throw new Error("store exploded");
    },
    check: async () => {
      throw new Error("store exploded");
    },
    close: async () => {},
  };

  beforeAll(async () => {
    const app = express();
    app.set("trust proxy", "loopback");
    const limiter = new MemoryRateLimiter({ windowMs: 10_000 });
    app.get(
      "/whoami",
      rateLimit({
        limiter,
        identify: async (req) => {
          const key = clientAddressKey(req);
          seenKeys.push(key);
          return { key, limit: 10 };
        },
      }),
      (_req, res) => {
        res.json({ ok: true });
      },
    );
    app.get(
      "/broken",
      rateLimit({ limiter: failing, identify: () => ({ key: "k", limit: 1 }) }),
      (_req, res) => {
        res.json({ reached: true });
      },
    );
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: error.message });
    });
    await new Promise<void>((resolve) => {
      server = app.listen(0, "127.0.0.1", () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("keys unauthenticated clients by req.ip, which honours the trust-proxy setting", async () => {
    await fetch(`${base}/whoami`);
    await fetch(`${base}/whoami`, { headers: { "x-forwarded-for": "198.51.100.4" } });
    expect(seenKeys).toEqual(["ip:127.0.0.1", "ip:198.51.100.4"]);
  });

  it("passes a store error to the app's error handler instead of hanging or calling the route", async () => {
    const response = await fetch(`${base}/broken`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "store exploded" });
  });
});
