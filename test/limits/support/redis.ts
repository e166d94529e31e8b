// Which Redis the limiter tests use, and whether they run: always when REDIS_URL is set (and then an
// unreachable Redis fails them), otherwise only if one answers at the default address.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REDIS_REQUIRED = Boolean(process.env.REDIS_URL);

export async function shouldRunRedisTests(): Promise<boolean> {
  if (REDIS_REQUIRED) return true;
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 500,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A key prefix no other test file (or earlier run) uses, so files can share one Redis in parallel. */
export function uniquePrefix(label: string): string {
  return `test:limits:${label}:${randomUUID()}:`;
}

/**
 * A plain client for inspecting and cleaning up what the limiters wrote. Rejects with a clear message
 * when Redis can't be reached, which fails the suite in the run where REDIS_URL is set.
 */
export async function connectAdminClient(): Promise<Redis> {
  const client = new Redis(REDIS_URL, {
    maxRetriesPerRequest: 1,
    retryStrategy: (n) => (n > 3 ? null : 100),
  });
  client.on("error", () => {});
  try {
    await client.ping();
    return client;
  } catch (error) {
    client.disconnect();
    throw new Error(`Redis tests need a Redis at ${REDIS_URL}: ${(error as Error).message}`);
  }
}

export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}
