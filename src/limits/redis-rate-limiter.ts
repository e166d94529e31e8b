// Sliding log in Redis, shared by every instance: one sorted set per key whose scores are the admission
// times of the requests inside the window. Trimming, counting and adding happen in one Lua script, so
// concurrent requests from several instances can never both take the last slot.
//
// Requests for one budget that arrive while that budget's script is on its way are sent together, as one
// call that decides each of them in arrival order (the way the change log's head is read, and
// DataLoader's batches): a busy instance pays one round trip to Redis, one socket write and one wake-up
// of Redis per batch instead of per request (a fifth of a cache hit's CPU went to that write). The
// decisions are the ones the same requests sent one by one at that moment would get: the batch is
// admitted in order up to the limit, each admitted request counted with its own member.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { decisionFromLog, type RateLimitDecision, type RateLimiter } from "./rate-limiter.ts";

// KEYS[1]  sorted set of admission times (ms) for one client
// ARGV[1]  window ms   ARGV[2] limit   ARGV[3] member prefix, unique per call (each request adds ":i")
// ARGV[4]  now in ms, or "" to use the Redis server's clock
// ARGV[5]  "1" to count admitted requests, "0" to only report (check)
// ARGV[6]  how many requests the call decides, in arrival order (1 for a check)
// Returns {admitted, count in window before them, ms when capacity frees for an admitted request, the same
// for a refused one, now ms}.
const SLIDING_LOG_LUA = `
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local now = tonumber(ARGV[4])
local requests = tonumber(ARGV[6])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local before = redis.call('ZCARD', KEYS[1])
local admitted = 0
if before < limit then admitted = math.min(requests, limit - before) end
local count = before
if ARGV[5] == '1' and admitted > 0 then
  for i = 1, admitted do
    redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. i)
  end
  redis.call('PEXPIRE', KEYS[1], window)
  count = before + admitted
end
local function freesAt(index)
  local freeing = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
  if freeing[2] then return tonumber(freeing[2]) + window end
  return now + window
end
local refusedFreesAt = now + window
if admitted < requests then refusedFreesAt = freesAt(math.max(0, count - limit)) end
return {admitted, before, freesAt(0), refusedFreesAt, now}
`;

const COMMAND = "rateLimitSlidingLog";

type SlidingLogCommand = (
  key: string,
  windowMs: number,
  limit: number,
  memberPrefix: string,
  nowMs: string,
  count: "1" | "0",
  requests: number,
) => Promise<
  [admitted: number, before: number, admittedFreesAt: number, refusedFreesAt: number, now: number]
>;

/** A request waiting for the batch after the one on its way. */
interface Waiting {
  resolve(decision: RateLimitDecision): void;
  reject(error: unknown): void;
}

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
  /** Per budget (key and limit) with a call on its way: the requests that arrived since, in order. */
  readonly #waiting = new Map<string, Waiting[]>();

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
    const budget = `${limit} ${key}`;
    const onItsWay = this.#waiting.has(budget);
    if (!onItsWay) this.#waiting.set(budget, []);
    const batch = this.#waiting.get(budget)!;
    const decided = new Promise<RateLimitDecision>((resolve, reject) => batch.push({ resolve, reject }));
    // Nothing on its way for this budget: this request goes at once, as a batch of one.
    if (!onItsWay) this.#sendWaiting(budget, key, limit);
    return decided;
  }

  async check(key: string, limit: number): Promise<RateLimitDecision> {
    const [decision] = await this.#decide(key, limit, "0", 1);
    return decision!;
  }

  /**
   * Sends the requests waiting for `budget` as one call, then those that arrived meanwhile, until none
   * did. The budget stays in `#waiting` while a call is on its way, so later requests queue behind it.
   */
  #sendWaiting(budget: string, key: string, limit: number): void {
    const batch = this.#waiting.get(budget) ?? [];
    if (batch.length === 0) {
      this.#waiting.delete(budget);
      return;
    }
    this.#waiting.set(budget, []);
    this.#decide(key, limit, "1", batch.length)
      .then(
        (decisions) => {
          for (const [i, request] of batch.entries()) request.resolve(decisions[i]!);
        },
        (error: unknown) => {
          for (const request of batch) request.reject(error);
        },
      )
      .finally(() => this.#sendWaiting(budget, key, limit));
  }

  async #decide(
    key: string,
    limit: number,
    count: "1" | "0",
    requests: number,
  ): Promise<RateLimitDecision[]> {
    await this.#waitWhileConnecting();
    const memberPrefix = `${this.#instanceId}:${++this.#sequence}`;
    const [admitted, before, admittedFreesAtMs, refusedFreesAtMs, nowMs] = await this.#run(
      this.#keyPrefix + key,
      this.#windowMs,
      limit,
      memberPrefix,
      this.#now ? String(this.#now()) : "",
      count,
      requests,
    );
    return Array.from({ length: requests }, (_, i) => {
      const allowed = i < admitted;
      return decisionFromLog({
        allowed,
        limit,
        // What the log held right after this request: the admitted ones before it and itself.
        count: allowed ? before + (count === "1" ? i + 1 : 0) : before + admitted,
        nowMs,
        freesAtMs: allowed ? admittedFreesAtMs : refusedFreesAtMs,
      });
    });
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
