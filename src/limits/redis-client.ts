// The Redis connection rate limiting runs over, tuned to fail fast: a limiter answer that arrives late is
// worse than a local one, so a dead or stalled Redis must turn into an immediate error the resilient
// limiter can fall back on, never into a queued or hanging request.
//
// ioredis loads when a client is made (REDIS_URL set), not with every server.
import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";

const require = createRequire(import.meta.url);

export const FAIL_FAST_REDIS_OPTIONS: RedisOptions = {
  /** A stalled server (network partition, overloaded Redis) surfaces as an error after this many ms. */
  commandTimeout: 200,
  connectTimeout: 1_000,
  /** While disconnected, commands fail at once instead of waiting in a queue for a reconnect. */
  enableOfflineQueue: false,
  /** Commands in flight when the connection drops are failed right away rather than kept for retries... */
  maxRetriesPerRequest: 0,
  /** ...and never replayed: a consume that may already have run would be counted twice. */
  autoResendUnfulfilledCommands: false,
  /** Keep trying to reconnect forever (so we return to Redis once it is back), at most a second apart. */
  retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
};

/**
 * Connects to `url` with {@link FAIL_FAST_REDIS_OPTIONS} (overridable, e.g. for shorter test timings).
 * The caller owns the client and must `quit()` it.
 */
export function createRedisClient(url: string, overrides: RedisOptions = {}): Redis {
  const { Redis: RedisClient } = require("ioredis") as typeof import("ioredis");
  const client = new RedisClient(url, { ...FAIL_FAST_REDIS_OPTIONS, ...overrides });
  // Without a listener ioredis prints every failed reconnect attempt. Faults are reported instead by the
  // resilient limiter, once per outage, when a command actually fails.
  client.on("error", () => {});
  return client;
}
