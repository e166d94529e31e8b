// Puts a shared store (Redis) first and a per-instance limiter behind it. While the store fails, requests
// are limited per instance instead of failing or waiting: during an outage each instance grants its own
// budget, which is the accepted price of never answering 500 because the limiter's store is down.
//
// The store is retried by one request at a time, at most every `probeIntervalMs`, so a Redis that hangs
// (rather than refusing connections) costs one command timeout per interval, not one per request.
//
// rate-limiter-flexible's `insuranceLimiter` does the same job, but only for its own store limiters,
// which count in fixed windows; this wraps any RateLimiter, including the sliding-log RedisRateLimiter.
import type { RateLimitDecision, RateLimiter, RateLimitLogger } from "./rate-limiter.ts";

export interface ResilientRateLimiterOptions {
  /** The shared store, e.g. a RedisRateLimiter. Its errors are caught. */
  primary: RateLimiter;
  /** Used while the primary fails; must not throw (a MemoryRateLimiter). */
  fallback: RateLimiter;
  /** After a failure, how long to stay on the fallback before trying the primary again. Default 1000 ms. */
  probeIntervalMs?: number;
  /** Gets one warning when the primary starts failing and one info line when it works again. Default `console`. */
  log?: RateLimitLogger;
  /** Clock for probe scheduling (not for request windows), in milliseconds. Default `Date.now`. */
  now?: () => number;
}

export class ResilientRateLimiter implements RateLimiter {
  readonly #primary: RateLimiter;
  readonly #fallback: RateLimiter;
  readonly #probeIntervalMs: number;
  readonly #log: RateLimitLogger;
  readonly #now: () => number;
  #degraded = false;
  #nextProbeAtMs = 0;
  #probing = false;

  constructor(options: ResilientRateLimiterOptions) {
    this.#primary = options.primary;
    this.#fallback = options.fallback;
    this.#probeIntervalMs = options.probeIntervalMs ?? 1_000;
    this.#log = options.log ?? console;
    this.#now = options.now ?? Date.now;
  }

  /** True while requests are limited per instance because the primary store is failing. */
  get degraded(): boolean {
    return this.#degraded;
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    return this.#decide((store) => store.consume(key, limit));
  }

  async check(key: string, limit: number): Promise<RateLimitDecision> {
    return this.#decide((store) => store.check(key, limit));
  }

  async #decide(ask: (store: RateLimiter) => Promise<RateLimitDecision>): Promise<RateLimitDecision> {
    if (!this.#degraded) return this.#tryPrimary(ask);
    // While degraded, exactly one request at a time is let through to find out whether the store is back.
    if (this.#probing || this.#now() < this.#nextProbeAtMs) return ask(this.#fallback);
    this.#probing = true;
    try {
      return await this.#tryPrimary(ask);
    } finally {
      this.#probing = false;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#primary.close(), this.#fallback.close()]);
  }

  async #tryPrimary(ask: (store: RateLimiter) => Promise<RateLimitDecision>): Promise<RateLimitDecision> {
    let decision: RateLimitDecision;
    try {
      decision = await ask(this.#primary);
    } catch (error) {
      this.#nextProbeAtMs = this.#now() + this.#probeIntervalMs;
      if (!this.#degraded) {
        this.#degraded = true;
        const message = "Rate limiting: shared store unavailable; limiting per instance until it recovers";
        this.#log.warn(message, { error: describe(error) });
      }
      return ask(this.#fallback);
    }
    if (this.#degraded) {
      this.#degraded = false;
      this.#log.info("Rate limiting: shared store available again; limits are shared across instances");
    }
    return decision;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
