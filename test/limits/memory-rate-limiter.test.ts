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
});
