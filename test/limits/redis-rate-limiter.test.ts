// Needs a Redis: runs whenever one is reachable, and must (so fails without one) when REDIS_URL is set.

import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
