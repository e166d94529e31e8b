// Reads are meant to be called from browsers on any origin (public keys are embedded in websites).
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
