// Sliding log in Redis, shared by every instance: one sorted set per key whose scores are the admission
// times of the requests inside the window. Trimming, counting and adding happen in one Lua script, so
// concurrent requests from several instances can never both take the last slot.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { decisionFromLog, type RateLimitDecision, type RateLimiter } from "./rate-limiter.ts";

// KEYS[1]  sorted set of admission times (ms) for one client
// ARGV[1]  window ms   ARGV[2] limit   ARGV[3] unique member for this request
// ARGV[4]  now in ms, or "" to use the Redis server's clock
// ARGV[5]  "1" to count an admitted request, "0" to only report (check)
// Returns {allowed 0|1, count in window, ms when capacity frees, now ms}.
const SLIDING_LOG_LUA = `
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local now = tonumber(ARGV[4])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  if ARGV[5] == '1' then
    redis.call('ZADD', KEYS[1], now, ARGV[3])
    redis.call('PEXPIRE', KEYS[1], window)
    count = count + 1
  end
  allowed = 1
end
local index = 0
if allowed == 0 then index = count - limit end
local freeing = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
local freesAt = now + window
if freeing[2] then freesAt = tonumber(freeing[2]) + window end
return {allowed, count, freesAt, now}
`;

const COMMAND = "rateLimitSlidingLog";

type SlidingLogCommand = (
  key: string,
  windowMs: number,
  limit: number,
  member: string,
  nowMs: string,
  count: "1" | "0",
) => Promise<[number, number, number, number]>;

export interface RedisRateLimiterOptions {
  /** Connection to use; borrowed, not closed by {@link RedisRateLimiter.close}. See `createRedisClient`. */
  client: Redis;
  /** Length of the sliding window in milliseconds. */
  windowMs: number;
  /** Prepended to every key, so several services or test runs can share one Redis. Default `"ratelimit:"`. */
  keyPrefix?: string;
  /**
   * Current time in Unix milliseconds, for tests. By default the Redis server's clock is used, so instances
   * whose clocks disagree still agree on when a request leaves the window.
   */
  now?: () => number;
  /**
   * While the client is (re)connecting, how long a request waits for it to become ready before failing.
   * Avoids a spurious fault right after start-up. Default 200 ms.
   */
  connectWaitMs?: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly #client: Redis;
  readonly #run: SlidingLogCommand;
  readonly #windowMs: number;
  readonly #keyPrefix: string;
  readonly #now: (() => number) | undefined;
  readonly #connectWaitMs: number;
  /** Sorted-set members must be unique even for requests in the same millisecond from several instances. */
  readonly #instanceId = randomUUID();
  #sequence = 0;

  constructor(options: RedisRateLimiterOptions) {
    this.#client = options.client;
    this.#windowMs = options.windowMs;
    this.#keyPrefix = options.keyPrefix ?? "ratelimit:";
    this.#now = options.now;
    this.#connectWaitMs = options.connectWaitMs ?? 200;
    // defineCommand sends EVALSHA and falls back to EVAL only when Redis lacks the script (after a restart),
    // so the script text crosses the wire once, not per request. Redefining it on a shared client is harmless.
    this.#client.defineCommand(COMMAND, { numberOfKeys: 1, lua: SLIDING_LOG_LUA });
    const client = this.#client as unknown as { [COMMAND]: SlidingLogCommand };
    this.#run = client[COMMAND].bind(client);
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    return this.#decide(key, limit, "1");
  }

  async check(key: string, limit: number): Promise<RateLimitDecision> {
    return this.#decide(key, limit, "0");
  }

  async #decide(key: string, limit: number, count: "1" | "0"): Promise<RateLimitDecision> {
    await this.#waitWhileConnecting();
    const member = `${this.#instanceId}:${++this.#sequence}`;
    const [allowed, inWindow, freesAtMs, nowMs] = await this.#run(
      this.#keyPrefix + key,
      this.#windowMs,
      limit,
      member,
      this.#now ? String(this.#now()) : "",
      count,
    );
    return decisionFromLog({ allowed: allowed === 1, limit, count: inWindow, nowMs, freesAtMs });
  }

  /** The client belongs to whoever created it. */
  async close(): Promise<void> {}

  /**
   * With the offline queue disabled, a command sent mid-handshake fails at once; give a connection that
   * is already being established a moment to finish. A refused or dead connection is "reconnecting",
   * not "connecting", and does not wait.
   */
  async #waitWhileConnecting(): Promise<void> {
    const status = this.#client.status;
    if (status !== "connecting" && status !== "connect") return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#client.off("ready", done);
        this.#client.off("close", done);
        resolve();
      };
      const timer = setTimeout(done, this.#connectWaitMs);
      this.#client.once("ready", done);
      this.#client.once("close", done);
    });
  }
}
