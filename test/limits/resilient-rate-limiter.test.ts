import net from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "../../src/limits/create-rate-limiter.ts";
import { MemoryRateLimiter } from "../../src/limits/memory-rate-limiter.ts";
import type { RateLimitDecision, RateLimiter } from "../../src/limits/rate-limiter.ts";
import { ResilientRateLimiter } from "../../src/limits/resilient-rate-limiter.ts";
import {
  AUTHENTICATED_LIMIT,
  type Sent,
  send,
  sendMany,
  startApp,
  UNAUTHENTICATED_LIMIT,
} from "./support/app.ts";
import { expectTooManyRequests } from "./support/http-contract.ts";
import {
  connectAdminClient,
  deleteKeys,
  REDIS_URL,
  shouldRunRedisTests,
  uniquePrefix,
} from "./support/redis.ts";
import { startTcpProxy } from "./support/tcp-proxy.ts";

/** Collects log lines as "message {data}" strings. */
function recordingLog() {
  const lines = { warn: [] as string[], info: [] as string[] };
  const line = (message: string, data?: Record<string, unknown>) =>
    `${message} ${JSON.stringify(data ?? {})}`;
  return {
    lines,
    log: {
      warn: (message: string, data?: Record<string, unknown>) => lines.warn.push(line(message, data)),
      info: (message: string, data?: Record<string, unknown>) => lines.info.push(line(message, data)),
    },
  };
}

/** A primary store that can be switched off, counting the calls it gets. */
function switchablePrimary() {
  const state = { down: false, calls: 0 };
  const decision: RateLimitDecision = {
    allowed: true,
    limit: 1,
    remaining: 0,
    resetAtSeconds: 0,
    retryAfterSeconds: 0,
  };
  const answer = async () => {
    state.calls++;
    if (state.down) throw new Error("connect ECONNREFUSED");
    return decision;
  };
  const limiter: RateLimiter = { consume: answer, check: answer, close: async () => {} };
  return { state, limiter };
}

describe("ResilientRateLimiter", () => {
  it("falls back per instance, logs the fault once, probes at most once per interval, logs recovery once", async () => {
    let t = 0;
    const primary = switchablePrimary();
    const fallback = new MemoryRateLimiter({ windowMs: 10_000, now: () => t });
    const { lines, log } = recordingLog();
    const limiter = new ResilientRateLimiter({
      primary: primary.limiter,
      fallback,
      probeIntervalMs: 1_000,
      log,
      now: () => t,
    });

    await limiter.consume("k", 5);
    expect(fallback.size).toBe(0); // the fallback is not touched while the primary works

    primary.state.down = true;
    const during = [];
    for (let i = 0; i < 8; i++) during.push(await limiter.consume("k", 5));
    // Limited by the fallback, not failed and not unlimited.
    expect(during.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(primary.state.calls).toBe(2); // one ok, one failure; then no retries within the interval
    expect(lines.warn).toHaveLength(1);
    expect(lines.warn[0]).toContain("ECONNREFUSED");
    expect(limiter.degraded).toBe(true);

    t = 1_000; // probe is due and still fails: no new log line
    await limiter.consume("k", 5);
    await limiter.consume("k", 5);
    expect(primary.state.calls).toBe(3);
    expect(lines.warn).toHaveLength(1);

    primary.state.down = false;
    t = 2_000;
    expect((await limiter.consume("k", 5)).allowed).toBe(true);
    expect(primary.state.calls).toBe(4);
    expect(limiter.degraded).toBe(false);
    expect(lines.info).toHaveLength(1);
    await limiter.consume("k", 5);
    expect(primary.state.calls).toBe(5);
    expect(lines).toEqual({ warn: [expect.any(String)], info: [expect.any(String)] });
  });

  it("lets only one request at a time probe a failing store", async () => {
    let release: () => void = () => {};
    let probes = 0;
    const hang = () => {
      probes++;
      return new Promise<RateLimitDecision>((_, reject) => {
        release = () => reject(new Error("Command timed out"));
      });
    };
    const hanging: RateLimiter = {
      consume: hang,
      check: hang,
      close: async () => {},
    };
    const limiter = new ResilientRateLimiter({
      primary: hanging,
      fallback: new MemoryRateLimiter({ windowMs: 1_000 }),
      probeIntervalMs: 0,
      log: recordingLog().log,
    });
    const first = limiter.consume("k", 10);
    release();
    await first; // now degraded
    const probe = limiter.consume("k", 10);
    const others = await Promise.all(Array.from({ length: 5 }, () => limiter.consume("k", 10)));
    expect(others.every((d) => d.allowed)).toBe(true);
    expect(probes).toBe(2);
    release();
    await probe;
  });
});

describe("createRateLimiter", () => {
  it("uses memory when no Redis is configured", async () => {
    const limiter = createRateLimiter({ windowMs: 10_000 });
    expect(limiter).toBeInstanceOf(MemoryRateLimiter);
    await limiter.close();
  });

  it("serves from memory, with one log line, when the configured Redis is unreachable", async () => {
    const port = await closedPort();
    const { lines, log } = recordingLog();
    const limiter = createRateLimiter({ windowMs: 10_000, redisUrl: `redis://127.0.0.1:${port}`, log });
    const app = await startApp(limiter);
    try {
      const started = performance.now();
      const results = await sendMany(15, () => [app.url, { "x-forwarded-for": "203.0.113.9" }], 1);
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(results.filter((r) => r.status === 200)).toHaveLength(UNAUTHENTICATED_LIMIT);
      for (const r of results.filter((r) => r.status !== 200))
        expectTooManyRequests(r, UNAUTHENTICATED_LIMIT);
      expect(lines.warn).toHaveLength(1);
      expect(lines.info).toHaveLength(0);
    } finally {
      await app.close();
      await limiter.close();
    }
  });
});

describe.runIf(await shouldRunRedisTests())("createRateLimiter when Redis goes away and comes back", () => {
  const prefix = uniquePrefix("resilient");
  let admin: Redis;
  beforeAll(async () => {
    admin = await connectAdminClient();
  });
  afterAll(async () => {
    if (!admin) return; // beforeAll already failed
    await deleteKeys(admin, prefix);
    await admin.quit();
  });

  /** An app whose limiter reaches Redis through a proxy the test controls. */
  async function setup(name: string, probeIntervalMs: number) {
    const proxy = await startTcpProxy(REDIS_URL);
    const { lines, log } = recordingLog();
    const keyPrefix = `${prefix}${name}:`;
    const limiter = createRateLimiter({
      windowMs: 10_000,
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix,
      log,
      probeIntervalMs,
      redisOptions: { commandTimeout: 100, retryStrategy: () => 20 },
    });
    const app = await startApp(limiter);
    const authed = () => send(app.url, { "x-api-key": "secret-a" });
    const countedInRedis = () => admin.zcard(`${keyPrefix}key:key-a`);
    const teardown = async () => {
      await app.close();
      await limiter.close();
      await proxy.stop().catch(() => {});
    };
    return { proxy, lines, app, authed, countedInRedis, teardown };
  }

  it("keeps serving from memory while Redis is down and returns to Redis when it is back", async () => {
    const s = await setup("down", 50);
    try {
      for (let i = 0; i < 3; i++) expect((await s.authed()).status).toBe(200);
      expect(await s.countedInRedis()).toBe(3);

      await s.proxy.stop();
      const started = performance.now();
      const during: Sent[] = [];
      for (let i = 0; i < 30; i++) during.push(await s.authed());
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(during.map((r) => r.status)).toEqual(Array(30).fill(200));
      expect(during.every((r) => r.headers.get("X-RateLimit-Limit") === String(AUTHENTICATED_LIMIT))).toBe(
        true,
      );
      // Still limiting (per instance): the unauthenticated budget runs out as usual.
      const anonymous = await sendMany(12, () => [s.app.url, { "x-forwarded-for": "203.0.113.10" }], 1);
      expect(anonymous.filter((r) => r.status === 200)).toHaveLength(UNAUTHENTICATED_LIMIT);
      expect(anonymous.filter((r) => r.status === 429)).toHaveLength(2);
      expect(s.lines.warn).toHaveLength(1);
      expect(s.lines.info).toHaveLength(0);

      await s.proxy.restart();
      await until(async () => {
        expect((await s.authed()).status).toBe(200);
        return s.lines.info.length === 1;
      });
      const counted = await s.countedInRedis();
      expect(counted).toBeGreaterThan(3); // admissions are counted in Redis again
      await s.authed();
      expect(await s.countedInRedis()).toBe(counted + 1);
      expect(s.lines.warn).toHaveLength(1);
      expect(s.lines.info).toHaveLength(1);
    } finally {
      await s.teardown();
    }
  });

  it("does not hang when Redis stalls: one command timeout, then memory until a probe succeeds", async () => {
    const s = await setup("stall", 300);
    try {
      expect((await s.authed()).status).toBe(200);
      s.proxy.pause();

      let started = performance.now();
      expect((await s.authed()).status).toBe(200); // waited for the 100 ms command timeout
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(s.lines.warn).toEqual([expect.stringContaining("timed out")]);

      // Within the probe interval nobody waits on Redis again.
      started = performance.now();
      for (let i = 0; i < 10; i++) expect((await s.authed()).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(250);

      s.proxy.resume();
      await until(async () => {
        expect((await s.authed()).status).toBe(200);
        return s.lines.info.length === 1;
      });
      expect(s.lines.warn).toHaveLength(1);
    } finally {
      await s.teardown();
    }
  });
});

/** A port nothing listens on: a Redis that refuses connections. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Repeats `step` every 20 ms until it returns true; fails after `timeoutMs`. */
async function until(step: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await step())) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
