// Which budget each caller spends: the one place that decides it. Every budget key starts with its
// kind, so an API key id can never equal an address key, nor one kind of budget another's.
// - A request with a valid API key spends its key's budget (RATE_LIMIT_AUTHENTICATED per window),
//   whichever address it comes from; one without spends its client address's (RATE_LIMIT_UNAUTHENTICATED).
// - Wrong admin tokens are counted per client address (admin-routes.ts answers 429 past the budget).
// - New image variants (a transform not computed before) are counted per client address
//   (MEDIA_TRANSFORM_RATE_LIMIT), whatever key asked: computing one costs CPU, serving one does not.
// The client address is `req.ip`, which honours TRUST_PROXY: a spoofed X-Forwarded-For from a peer that
// is not a trusted proxy is ignored.
import type { Request } from "express";
import type { RateLimitIdentity } from "./rate-limit-middleware.ts";

/** Requests admitted per window to a caller with a valid API key, and to one without. */
export interface RequestLimits {
  authenticated: number;
  unauthenticated: number;
}

/** A request's client address (TRUST_PROXY honoured): what budgets count and what a key's last use records. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}

/** Budget key of a request's client address. */
export function clientAddressKey(req: Request): string {
  return `ip:${clientAddress(req)}`;
}

/** The budget a request to the API spends: its key's, or its address's without a valid key. */
export function requestBudget(
  limits: RequestLimits,
): (req: Request & { caller?: CallerKey | null }) => RateLimitIdentity {
  return (req) =>
    req.caller?.keyId
      ? { key: `key:${req.caller.keyId}`, limit: limits.authenticated }
      : { key: clientAddressKey(req), limit: limits.unauthenticated };
}

/** The budget of wrong admin tokens from a request's address. */
export function adminAuthFailuresKey(req: Request): string {
  return `admin-auth-failures:${clientAddressKey(req)}`;
}

/** The budget of new image variants for a request's address. */
export function newVariantsKey(req: Request): string {
  return `transform:${clientAddressKey(req)}`;
}

/** What the request budget needs to know of a caller (set by the API key middleware). */
interface CallerKey {
  keyId?: string | null;
}
