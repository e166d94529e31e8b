// The contract every rate-limit store implements, and the arithmetic that turns a sliding log's state
// into the numbers clients see, kept in one place so the in-memory and Redis stores answer identically.

/** What a store decided about one request, in the units the HTTP headers use. */
export interface RateLimitDecision {
  /** Whether the request was admitted (and counted). A rejected request is never counted. */
  allowed: boolean;
  /** The limit that was applied. */
  limit: number;
  /** Requests still admissible in the current window after this one. */
  remaining: number;
  /** Unix seconds (rounded up) at which the window next frees capacity. */
  resetAtSeconds: number;
  /** Whole seconds (≥ 1) to wait before retrying; 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * A sliding-window limiter: at most `limit` admitted requests per key in any window of the store's length.
 * Only admitted requests count, so a client that keeps retrying while rejected does not extend its own ban.
 */
export interface RateLimiter {
  consume(key: string, limit: number): Promise<RateLimitDecision>;
  /**
   * The decision a consume would get now, without counting anything: for budgets that only some
   * requests draw on (failed authentications), checked by every request.
   */
  check(key: string, limit: number): Promise<RateLimitDecision>;
  /** Releases timers and connections this limiter owns. */
  close(): Promise<void>;
}

/** Where limiters report store faults; the app's `Logger` (src/logger.ts) and `console` both fit. */
export interface RateLimitLogger {
  warn(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
}

/** The state of one key's sliding log right after a consume. */
export interface SlidingLogState {
  allowed: boolean;
  limit: number;
  /** Admitted requests inside the window, including this one when it was admitted. */
  count: number;
  nowMs: number;
  /**
   * When capacity frees: the time the oldest counted request leaves the window (for a rejected request,
   * the one whose departure brings the count below the limit); `now + window` when nothing is counted.
   */
  freesAtMs: number;
}

export function decisionFromLog(state: SlidingLogState): RateLimitDecision {
  return {
    allowed: state.allowed,
    limit: state.limit,
    remaining: Math.max(0, state.limit - state.count),
    // Rounded up: at the advertised second, capacity really is free.
    resetAtSeconds: Math.ceil(state.freesAtMs / 1000),
    // Retry-After is whole seconds and "0" would invite an immediate, certainly-rejected retry.
    retryAfterSeconds: state.allowed ? 0 : Math.max(1, Math.ceil((state.freesAtMs - state.nowMs) / 1000)),
  };
}
