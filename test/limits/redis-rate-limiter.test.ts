// Needs a Redis: runs whenever one is reachable, and must (so fails without one) when REDIS_URL is set.

import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRateLimiter } from "../../src/limits/create-rate-limiter.ts";
import { createRedisClient } from "../../src/limits/redis-client.ts";
import { RedisRateLimiter } from "../../src/limits/redis-rate-limiter.ts";
import { AUTHENTICATED_LIMIT, sendMany, startApp, WINDOW_MS } from "./support/app.ts";
import { expectTooManyRequests, httpContract } from "./support/http-contract.ts";
import {
  connectAdminClient,
  deleteKeys,
  REDIS_URL,
  shouldRunRedisTests,
  uniquePrefix,
} from "./support/redis.ts";
import { slidingWindowContract } from "./support/sliding-window-contract.ts";

const prefix = uniquePrefix("redis");
let fresh = 0;
/** Each limiter gets its own key space under the file's prefix, so tests in this file don't share counts. */
const nextPrefix = () => `${prefix}${++fresh}:`;

describe.runIf(await shouldRunRedisTests())("RedisRateLimiter", () => {
  let admin: Redis;
  let client: Redis;
  const quietLog = { warn: () => {}, info: () => {} };

  beforeAll(async () => {
    admin = await connectAdminClient();
    client = createRedisClient(REDIS_URL);
  });
  afterAll(async () => {
    if (!admin) return; // beforeAll already failed
    await deleteKeys(admin, prefix);
    await client.quit();
    await admin.quit();
  });

  describe("sliding window", () => {
    slidingWindowContract(
      ({ windowMs, now }) => new RedisRateLimiter({ client, windowMs, now, keyPrefix: nextPrefix() }),
    );
  });

  describe("over HTTP", () => {
    httpContract((windowMs) =>
      createRateLimiter({ windowMs, redisUrl: REDIS_URL, keyPrefix: nextPrefix(), log: quietLog }),
    );
  });

  it("shares one budget between two app instances: 200 together, not 400", async () => {
    const keyPrefix = nextPrefix();
    const limiters = [1, 2].map(() =>
      createRateLimiter({ windowMs: WINDOW_MS, redisUrl: REDIS_URL, keyPrefix, log: quietLog }),
    );
    const apps = await Promise.all(limiters.map((limiter) => startApp(limiter)));
    try {
      const results = await sendMany(260, (i) => [apps[i % 2]!.url, { "x-api-key": "secret-a" }]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(AUTHENTICATED_LIMIT);
      for (const r of results.filter((r) => r.status === 429)) expectTooManyRequests(r, AUTHENTICATED_LIMIT);
      // Both instances did admit requests: the budget was shared, not used up by one of them.
      expect(apps[0]!.handled()).toBeGreaterThan(50);
      expect(apps[1]!.handled()).toBeGreaterThan(50);
      expect(apps[0]!.handled() + apps[1]!.handled()).toBe(AUTHENTICATED_LIMIT);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
      await Promise.all(limiters.map((limiter) => limiter.close()));
    }
  });

  it("decides requests that arrive together in one call to Redis each batch, as if sent one by one", async () => {
    const keyPrefix = nextPrefix();
    const limiter = new RedisRateLimiter({ client, windowMs: 60_000, keyPrefix });
    const sent = vi.spyOn(client, "sendCommand");
    try {
      const decisions = await Promise.all(Array.from({ length: 30 }, () => limiter.consume("burst", 20)));
      const scriptCalls = sent.mock.calls.filter(([command]) => /^eval/i.test(command.name)).length;
      // The first request goes alone; the 29 that arrived while it was on its way go as one.
      expect(scriptCalls).toBe(2);
      // Admitted in arrival order up to the limit, each with what was left after it.
      expect(decisions.map((d) => d.allowed)).toEqual([...Array(20).fill(true), ...Array(10).fill(false)]);
      expect(decisions.slice(0, 20).map((d) => d.remaining)).toEqual(
        Array.from({ length: 20 }, (_, i) => 19 - i),
      );
      for (const refused of decisions.slice(20)) {
        expect(refused).toMatchObject({ remaining: 0, limit: 20 });
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      }
      // Each admitted request is its own member of the log; the refused ones are not counted.
      expect(await admin.zcard(`${keyPrefix}burst`)).toBe(20);
      // Budgets are batched apart: another key and another limit each get their own call.
      sent.mockClear();
      const [other, lower] = await Promise.all([limiter.consume("other", 20), limiter.consume("burst", 25)]);
      expect(other).toMatchObject({ allowed: true, remaining: 19 });
      expect(lower).toMatchObject({ allowed: true, remaining: 4 });
    } finally {
      sent.mockRestore();
    }
  });

  it("rejects every request of a batch whose call fails, and the next batch goes again", async () => {
    const keyPrefix = nextPrefix();
    const limiter = new RedisRateLimiter({ client, windowMs: 60_000, keyPrefix });
    const send = client.sendCommand.bind(client);
    let calls = 0;
    // The first call goes through; the second, the batch of the two requests that waited for it, fails.
    const sent = vi.spyOn(client, "sendCommand").mockImplementation((command, stream) => {
      if (++calls !== 2) return send(command, stream);
      command.reject(new Error("connection lost"));
      return command.promise;
    });
    const first = limiter.consume("k", 10);
    const waiting = [limiter.consume("k", 10), limiter.consume("k", 10)];
    try {
      expect((await first).allowed).toBe(true);
      for (const request of waiting) await expect(request).rejects.toThrow("connection lost");
      expect(await limiter.consume("k", 10)).toMatchObject({ allowed: true, remaining: 8 });
    } finally {
      sent.mockRestore();
    }
  });

  it("stores one sorted set per key that expires once the window has passed", async () => {
    const keyPrefix = nextPrefix();
    const limiter = new RedisRateLimiter({ client, windowMs: 5_000, keyPrefix });
    await limiter.consume("key:a", 10);
    await limiter.consume("key:a", 10);
    expect(await admin.zcard(`${keyPrefix}key:a`)).toBe(2);
    const ttl = await admin.pttl(`${keyPrefix}key:a`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it("uses the Redis server clock by default", async () => {
    const limiter = new RedisRateLimiter({ client, windowMs: 10_000, keyPrefix: nextPrefix() });
    const decision = await limiter.consume("k", 1);
    const expected = Math.ceil(Date.now() / 1000) + 10;
    expect(Math.abs(decision.resetAtSeconds - expected)).toBeLessThanOrEqual(1);
  });
});
