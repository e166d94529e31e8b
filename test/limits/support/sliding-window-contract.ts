// Behaviour every store must show, driven by an injected clock so windows slide without sleeping.
// Run by the memory and the Redis test files against their own store.
import { expect, it } from "vitest";
import type { RateLimitDecision, RateLimiter } from "../../../src/limits/rate-limiter.ts";

/** A store under test, built with this window and clock; `close` is called by the suite. */
export type LimiterFactory = (options: { windowMs: number; now: () => number }) => RateLimiter;

const WINDOW_MS = 10_000;
/** A whole second, so expected Unix-second values are easy to state. */
const T0 = 1_700_000_000_000;

export function slidingWindowContract(makeLimiter: LimiterFactory): void {
  const withClock = async (test: (limiter: RateLimiter, clock: { t: number }) => Promise<void>) => {
    const clock = { t: T0 };
    const limiter = makeLimiter({ windowMs: WINDOW_MS, now: () => clock.t });
    try {
      await test(limiter, clock);
    } finally {
      await limiter.close();
    }
  };

  const consumeMany = async (limiter: RateLimiter, key: string, limit: number, count: number) => {
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < count; i++) decisions.push(await limiter.consume(key, limit));
    return decisions;
  };
  const admitted = (decisions: RateLimitDecision[]) => decisions.filter((d) => d.allowed).length;

  it("slides: requests leave the window one by one, not all at a boundary", () =>
    withClock(async (limiter, clock) => {
      expect(admitted(await consumeMany(limiter, "k", 200, 150))).toBe(150);
      clock.t = T0 + 9_000;
      expect(admitted(await consumeMany(limiter, "k", 200, 50))).toBe(50);

      const rejected = await limiter.consume("k", 200);
      // The 150 from t=0 leave at t=10 s: one second from now.
      expect(rejected).toEqual({
        allowed: false,
        limit: 200,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 10,
        retryAfterSeconds: 1,
      });

      // A fixed window would grant a fresh 200 here; a sliding window only what left it (the 150 from t=0).
      clock.t = T0 + 10_500;
      expect(admitted(await consumeMany(limiter, "k", 200, 250))).toBe(150);
      clock.t = T0 + 19_000; // the 50 from t=9 s leave exactly now
      expect(admitted(await consumeMany(limiter, "k", 200, 60))).toBe(50);
    }));

  it("check reports what a consume would get now, and counts nothing", () =>
    withClock(async (limiter, clock) => {
      expect(await limiter.check("k", 2)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 2,
        resetAtSeconds: T0 / 1000 + 10,
        retryAfterSeconds: 0,
      });
      await limiter.consume("k", 2);
      clock.t = T0 + 1_000;
      for (let i = 0; i < 5; i++)
        expect(await limiter.check("k", 2)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.consume("k", 2)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.check("k", 2)).toEqual({
        allowed: false,
        limit: 2,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 10,
        retryAfterSeconds: 9,
      });
      clock.t = T0 + 10_000;
      expect(await limiter.check("k", 2)).toMatchObject({ allowed: true, remaining: 1 });
    }));

  it("reports remaining and reset from the oldest counted request", () =>
    withClock(async (limiter, clock) => {
      expect(await limiter.consume("k", 3)).toEqual({
        allowed: true,
        limit: 3,
        remaining: 2,
        resetAtSeconds: T0 / 1000 + 10, // nothing older: now + window
        retryAfterSeconds: 0,
      });
      clock.t = T0 + 2_500;
      const second = await limiter.consume("k", 3);
      expect(second).toMatchObject({ allowed: true, remaining: 1, resetAtSeconds: T0 / 1000 + 10 });
      await limiter.consume("k", 3);
      clock.t = T0 + 4_200;
      // Full until the request from t=0 leaves at t=10 s: 5.8 s from now, so retry after 6.
      expect(await limiter.consume("k", 3)).toMatchObject({
        allowed: false,
        remaining: 0,
        retryAfterSeconds: 6,
      });
      clock.t = T0 + 10_000;
      // The first left; the oldest now is the one from t=2.5 s, leaving at 12.5 s → Unix second 13.
      expect(await limiter.consume("k", 3)).toMatchObject({
        allowed: true,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 13,
      });
    }));

  it("does not count rejected requests", () =>
    withClock(async (limiter, clock) => {
      expect(admitted(await consumeMany(limiter, "k", 5, 5))).toBe(5);
      for (let s = 1; s < 10; s++) {
        clock.t = T0 + s * 1_000;
        expect(admitted(await consumeMany(limiter, "k", 5, 20))).toBe(0);
      }
      clock.t = T0 + 10_000;
      expect(admitted(await consumeMany(limiter, "k", 5, 10))).toBe(5);
    }));

  it("keeps separate budgets per key", () =>
    withClock(async (limiter) => {
      expect(admitted(await consumeMany(limiter, "a", 200, 260))).toBe(200);
      expect(admitted(await consumeMany(limiter, "b", 200, 260))).toBe(200);
      expect(admitted(await consumeMany(limiter, "ip:203.0.113.7", 10, 20))).toBe(10);
    }));

  it("never admits more than the limit in any window over a spread-out schedule", () =>
    withClock(async (limiter, clock) => {
      const limit = 200;
      const schedule = burstySchedule(3_000, 60_000, 42);
      const admittedAt: number[] = [];
      for (const t of schedule) {
        clock.t = T0 + t;
        const decision = await limiter.consume("k", limit);
        // Checked against a brute-force model: admit iff fewer than `limit` admissions in (t - window, t].
        const inWindow = admittedAt.filter((a) => a > t - WINDOW_MS).length;
        expect(decision.allowed, `request at t=${t} ms`).toBe(inWindow < limit);
        if (decision.allowed) admittedAt.push(t);
      }
      expect(maxInAnyWindow(admittedAt, WINDOW_MS)).toBe(limit); // reached, never exceeded
      expect(admittedAt.length).toBeGreaterThan(2 * limit); // and the budget does come back
    }));
}

/** Admission times in ms from a seeded random process that alternates bursts and quiet spells. */
function burstySchedule(count: number, spanMs: number, seed: number): number[] {
  const random = mulberry32(seed);
  const times: number[] = [];
  let t = 0;
  while (times.length < count && t < spanMs) {
    const burst = random() < 0.3;
    t += Math.floor(random() * (burst ? 5 : 120));
    times.push(t);
  }
  return times;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Largest number of times inside any half-open window (s - window, s] (times ascending). */
export function maxInAnyWindow(times: number[], windowMs: number): number {
  let max = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[start] as number) <= (times[end] as number) - windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}
