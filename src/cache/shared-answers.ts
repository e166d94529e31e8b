// The response caches' second tier with CACHE=redis: answers one instance computed, kept in Redis for
// every instance. Each instance still answers from its own memory first (src/cache/rest-answers.ts,
// graphql-answers.ts); a lookup its memory misses asks Redis before computing, and a computed answer is
// written to both.
//
// Never stale on the same rule as the memory tier: the key holds the workspace's change-log head the
// answer was computed under, so a write (on any instance) moves every later lookup to keys nobody has
// written yet. Nothing is ever deleted; CACHE_TTL expires what is outgrown (and Redis's own
// `maxmemory-policy`, e.g. `allkeys-lru`, bounds the total where the server is set up for it).
//
// The cache is an optimization: a Redis that is down, slow (the client fails fast: 200 ms) or answers
// garbage makes a lookup a miss and a write a no-op; the request is computed as without the tier.
import type { Redis } from "ioredis";

export interface SharedAnswers {
  /** The stored bytes under `key`, or null (none, or Redis unavailable). */
  get(key: string): Promise<Buffer | null>;
  /** Stores `value` under `key` for the TTL; failures are ignored (see above). */
  set(key: string, value: Buffer): void;
  close(): Promise<void>;
}

/** Redis keys of answers start with this (and the door: `rest:` or `graphql:`). */
const KEY_PREFIX = "answers:";

/** Answers kept in Redis through `client` (fail-fast: src/limits/redis-client.ts), which the store owns and closes. */
export function createRedisAnswers(client: Redis, ttlMs: number): SharedAnswers {
  return {
    get: (key) => client.getBuffer(KEY_PREFIX + key).catch(() => null),
    set(key, value) {
      client.set(KEY_PREFIX + key, value, "PX", ttlMs).catch(() => {});
    },
    async close() {
      // quit() is refused while disconnected (no offline queue); disconnect() then stops reconnecting.
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/**
 * One record as one value: a JSON header line (what is derived from the body, and what the door needs
 * to send it) and then the body's bytes as they are.
 */
export function packAnswer(header: Record<string, string>, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]);
}

/** The header and body of a packed value; null when it is not one (never trust bytes from outside). */
export function unpackAnswer(value: Buffer): { header: Record<string, unknown>; body: Buffer } | null {
  const end = value.indexOf(0x0a);
  if (end < 0) return null;
  try {
    const header = JSON.parse(value.subarray(0, end).toString("utf8")) as unknown;
    if (typeof header !== "object" || header === null || Array.isArray(header)) return null;
    return { header: header as Record<string, unknown>, body: value.subarray(end + 1) };
  } catch {
    return null;
  }
}
