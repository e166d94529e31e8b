import { describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "../../src/limits/memory-rate-limiter.ts";
import { slidingWindowContract } from "./support/sliding-window-contract.ts";

describe("MemoryRateLimiter", () => {
  slidingWindowContract(({ windowMs, now }) => new MemoryRateLimiter({ windowMs, now }));

  it("forgets clients idle for a whole window", async () => {
    let t = 0;
    const limiter = new MemoryRateLimiter({ windowMs: 1_000, now: () => t });
    for (let i = 0; i < 100; i++) await limiter.consume(`ip:10.0.0.${i}`, 10);
    expect(limiter.size).toBe(100);
    t = 1_000;
    await limiter.consume("ip:10.0.1.1", 10);
    expect(limiter.size).toBe(1);
  });

  it("stays correct if the clock steps backwards", async () => {
    let t = 5_000;
    const limiter = new MemoryRateLimiter({ windowMs: 1_000, now: () => t });
    await limiter.consume("k", 2);
    t = 4_500;
    await limiter.consume("k", 2);
    expect((await limiter.consume("k", 2)).allowed).toBe(false);
    t = 5_600; // the entry from 4.5 s has left, the one from 5 s has not
    expect(await limiter.consume("k", 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume("k", 2)).allowed).toBe(false);
  });

  it("a key with a long window of admissions counts as a plain sliding log does, expired entries dropped in bulk", async () => {
    let t = 1_000_000;
    const windowMs = 1_000;
    const limit = 500;
    const limiter = new MemoryRateLimiter({ windowMs, now: () => t });
    /** The reference: every admission time, filtered on each request. */
    let reference: number[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 20_000; i++) {
      // Mostly forward in small steps (many requests per millisecond), sometimes a step back.
      t += random() < 0.02 ? -Math.floor(random() * 300) : Math.floor(random() * 3);
      reference = reference.filter((admitted) => t < admitted + windowMs);
      const allowed = reference.length < limit;
      if (allowed) reference.push(t);
      reference.sort((a, b) => a - b);
      const decision = await limiter.consume("k", limit);
      expect(decision.allowed).toBe(allowed);
      expect(decision.remaining).toBe(Math.max(0, limit - reference.length));
      const freeing = reference[allowed ? 0 : reference.length - limit] ?? t;
      expect(decision.resetAtSeconds).toBe(Math.ceil((freeing + windowMs) / 1000));
    }
  });
});
