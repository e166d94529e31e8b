// Per-process sliding log: for each key, the sorted times of the requests admitted in the last window.
// Used alone when no Redis is configured, and as the stand-in while Redis is unreachable.
//
// rate-limiter-flexible's RateLimiterMemory is not used here: it counts in fixed windows (which admit up
// to twice the limit across a window boundary), takes whole-second durations and reads Date.now()
// directly, so neither the semantics nor an injected clock would match the Redis store it stands in for.
import { decisionFromLog, type RateLimitDecision, type RateLimiter } from "./rate-limiter.ts";

export interface MemoryRateLimiterOptions {
  /** Length of the sliding window in milliseconds. */
  windowMs: number;
  /** Current time in Unix milliseconds; injectable so tests move time without sleeping. Default `Date.now`. */
  now?: () => number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #windowMs: number;
  readonly #now: () => number;
  /** Admission times per key, ascending; never longer than the key's limit since rejections aren't stored. */
  readonly #logs = new Map<string, number[]>();
  #lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimiterOptions) {
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    return this.#decide(key, limit, true);
  }

  async check(key: string, limit: number): Promise<RateLimitDecision> {
    return this.#decide(key, limit, false);
  }

  #decide(key: string, limit: number, count: boolean): RateLimitDecision {
    const nowMs = this.#now();
    this.#sweepIdleKeys(nowMs);

    const log = this.#logs.get(key) ?? [];
    // A request at time t is counted while now < t + window, the same boundary the Redis script uses.
    log.splice(0, countAtOrBefore(log, nowMs - this.#windowMs));
    const allowed = log.length < limit;
    if (allowed && count) log.splice(countAtOrBefore(log, nowMs), 0, nowMs);
    if (log.length > 0) this.#logs.set(key, log);
    else this.#logs.delete(key);

    const freeing = log[allowed ? 0 : log.length - limit];
    return decisionFromLog({
      allowed,
      limit,
      count: log.length,
      nowMs,
      freesAtMs: (freeing ?? nowMs) + this.#windowMs,
    });
  }

  async close(): Promise<void> {
    this.#logs.clear();
  }

  /** Keys currently holding state; exposed so tests can check that idle clients are forgotten. */
  get size(): number {
    return this.#logs.size;
  }

  /**
   * Drops keys whose every entry has left the window, at most once per window, so memory tracks the
   * clients active in the last window rather than every address ever seen (and no timer is needed).
   */
  #sweepIdleKeys(nowMs: number): void {
    if (nowMs - this.#lastSweepMs < this.#windowMs) return;
    this.#lastSweepMs = nowMs;
    const cutoff = nowMs - this.#windowMs;
    for (const [key, log] of this.#logs) {
      const newest = log[log.length - 1];
      if (newest === undefined || newest <= cutoff) this.#logs.delete(key);
    }
  }
}

/** Number of leading entries ≤ t in an ascending array (binary search; the clock may step backwards). */
function countAtOrBefore(sorted: number[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
