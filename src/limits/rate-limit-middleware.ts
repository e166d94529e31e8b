// Express middleware in front of limited routes: every response carries the X-RateLimit-* headers, and a
// request over the limit is answered 429 here, before any handler does work.
import type { ServerResponse } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.ts";

/** Which budget a request draws on. */
export interface RateLimitIdentity {
  /**
   * Budget key, e.g. the API key id for an authenticated request, else its client address (rate-budgets.ts decides which).
   * Give each kind its own prefix so an API key id can never equal an address key.
   */
  key: string;
  /** Requests admitted per window for this key. */
  limit: number;
}

export interface RateLimitOptions {
  /** Store to count in; one from `createRateLimiter` never throws on a Redis outage. */
  limiter: RateLimiter;
  /** Maps a request to its budget; may be async (e.g. if it has to look up an API key). */
  identify: (req: Request) => RateLimitIdentity | Promise<RateLimitIdentity>;
  /** The 429 body; defaults to the REST contract's `{error: "Too many requests", details}`. */
  limitedBody?: (message: string, retryAfterSeconds: number) => unknown;
}

function restLimitedBody(message: string): unknown {
  return { error: "Too many requests", details: { message, statusCode: 429 } };
}

export function rateLimit(options: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    // Decided already by the cached-read door (src/http/cached-read-door.ts): counted once only.
    let decision = req.rateLimitDecision;
    if (!decision) {
      const { key, limit } = await options.identify(req);
      decision = await options.limiter.consume(key, limit);
    }
    if (admitOrAnswer429(res, decision, options.limitedBody)) next();
  };
}

/**
 * Puts the X-RateLimit-* headers of `decision` on the response and, when it was not allowed, answers
 * 429 with Retry-After. Returns whether the request may go on.
 */
export function admitOrAnswer429(
  res: Response,
  decision: RateLimitDecision,
  limitedBody: RateLimitOptions["limitedBody"] = restLimitedBody,
): boolean {
  setRateLimitHeaders(res, decision);
  if (decision.allowed) return true;

  const seconds = decision.retryAfterSeconds;
  res.setHeader("Retry-After", String(seconds));
  const message = `Rate limit of ${decision.limit} requests exceeded; retry in ${seconds} second${seconds === 1 ? "" : "s"}.`;
  res.status(429).json(limitedBody(message, seconds));
  return false;
}

export function setRateLimitHeaders(res: ServerResponse, decision: RateLimitDecision): void {
  res.setHeader("X-RateLimit-Limit", String(decision.limit));
  res.setHeader("X-RateLimit-Remaining", String(decision.remaining));
  res.setHeader("X-RateLimit-Reset", String(decision.resetAtSeconds));
}
