// Chooses the store from configuration: Redis (with an in-memory stand-in for outages) when a URL is
// configured, so all instances share one budget per key; otherwise memory, for a single instance.
import type { RedisOptions } from "ioredis";
import { MemoryRateLimiter } from "./memory-rate-limiter.ts";
import type { RateLimiter, RateLimitLogger } from "./rate-limiter.ts";
import { createRedisClient } from "./redis-client.ts";
import { RedisRateLimiter } from "./redis-rate-limiter.ts";
import { ResilientRateLimiter } from "./resilient-rate-limiter.ts";

export interface CreateRateLimiterOptions {
  /** Length of the sliding window in milliseconds (`config.rateLimit.windowMs`). */
  windowMs: number;
  /** `config.redisUrl`; when absent, counters live in this process only. */
  redisUrl?: string | undefined;
  /**
   * Window clock in Unix milliseconds, for tests. Applies to both stores; by default memory uses
   * `Date.now` and Redis its own server clock.
   */
  now?: () => number;
  /** Where a Redis outage and recovery are reported (one line each). Default `console`. */
  log?: RateLimitLogger;
  /** Prefix of the Redis keys. Default `"ratelimit:"`. */
  keyPrefix?: string;
  /** How often, at most, to retry Redis while it is failing. Default 1000 ms. */
  probeIntervalMs?: number;
  /** ioredis options overriding the fail-fast defaults (e.g. shorter timeouts in tests). */
  redisOptions?: RedisOptions;
}

export function createRateLimiter(options: CreateRateLimiterOptions): RateLimiter {
  const memory = new MemoryRateLimiter({ windowMs: options.windowMs, now: options.now });
  if (!options.redisUrl) return memory;

  const client = createRedisClient(options.redisUrl, options.redisOptions);
  const limiter = new ResilientRateLimiter({
    primary: new RedisRateLimiter({
      client,
      windowMs: options.windowMs,
      keyPrefix: options.keyPrefix,
      now: options.now,
    }),
    fallback: memory,
    probeIntervalMs: options.probeIntervalMs,
    log: options.log,
  });

  return {
    consume: (key, limit) => limiter.consume(key, limit),
    check: (key, limit) => limiter.check(key, limit),
    async close() {
      await limiter.close();
      // quit() is refused while disconnected (no offline queue); disconnect() then stops reconnecting.
      await client.quit().catch(() => client.disconnect());
    },
  };
}
