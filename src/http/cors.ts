// Reads are meant to be called from browsers on any origin (public keys are embedded in websites),
// unless the key's owner bound it to some origins (src/auth/key-constraints.ts): then the answer names
// the request's origin alone, so no other page may read it.
import type { ServerResponse } from "node:http";
import type { RequestHandler } from "express";

/** The headers of every response (also those sent before routing: src/http/cached-read-door.ts). */
export function setCorsHeaders(res: ServerResponse): void {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Write-Position");
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS");
  res.setHeader(
    "Access-Control-Expose-Headers",
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, Write-Position",
  );
  res.setHeader("Access-Control-Max-Age", "86400");
}

/**
 * For a key bound to origins: a valid request names its own origin (and varies by it, for shared
 * caches); a refused one names none, so the page that sent it cannot read the answer.
 */
export function bindCorsToKeyOrigins(
  res: ServerResponse,
  key: { allowedOrigins: readonly string[] } | "refused" | null,
  origin: string | undefined,
): void {
  if (key === "refused") {
    res.removeHeader("Access-Control-Allow-Origin");
    return;
  }
  if (!key || key.allowedOrigins.length === 0 || !origin) return;
  res.setHeader("Access-Control-Allow-Origin", origin);
  const vary = res.getHeader("Vary");
  res.setHeader("Vary", vary ? `${String(vary)}, Origin` : "Origin");
}

export function openCors(): RequestHandler {
  return (req, res, next) => {
    setCorsHeaders(res);
    if (req.method === "OPTIONS") {
      res.status(204).end();
      return;
    }
    next();
  };
}
