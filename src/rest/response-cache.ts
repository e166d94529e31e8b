// The REST door's response cache and HTTP validators.
//
// Never stale, by construction: an answer is stored with the head of its workspace's change log (the
// position of the newest event) as read *before* the answer was computed, and served only while the
// head is still that. Every content write appends an event in its own transaction (the one writer), so
// a write that has returned has moved the head, on every instance, whoever made it (API, CLI,
// scheduler): the next read sees a new head and computes afresh. Entries are never invalidated, only
// outgrown (LRU by bytes). An answer computed from state newer than the head it was stored with is
// harmless: the next read reads the newer head and misses. Only routes that depend on nothing but the
// workspace's content opt in (`cached` in the route table); the key holds the workspace, the key kind
// (public and private answers never mix) and the whole URL (path and query: filters, pages, format).
//
// Every 200 answer of a GET carries a strong ETag (a hash of its bytes); a request whose If-None-Match
// holds it gets 304 without a body. That check is ours, not Express's freshness test, which gives up on
// any request with `Cache-Control: no-cache` — and fetch() sends that header with every conditional
// request.
import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import { LRUCache } from "lru-cache";

export interface CachedAnswer {
  head: string;
  body: Buffer;
  etag: string;
}

export interface ResponseCache {
  /** The workspace's change log head now: what a stored answer must match to be served. */
  head(workspaceId: string): Promise<string>;
  get(key: string, head: string): CachedAnswer | undefined;
  put(key: string, head: string, body: Buffer): CachedAnswer;
  stats(): { hits: number; misses: number; entries: number; bytes: number };
}

export interface ResponseCacheOptions {
  /** Reads the workspace's change log head (one indexed statement). */
  contentHead(workspaceId: string): Promise<string>;
  maxBytes: number;
}

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const entries = new LRUCache<string, CachedAnswer>({
    maxSize: options.maxBytes,
    sizeCalculation: (answer, key) => answer.body.length + key.length + 64,
  });
  let hits = 0;
  let misses = 0;
  return {
    head: options.contentHead,
    get(key, head) {
      const found = entries.get(key);
      if (found && found.head === head) {
        hits++;
        return found;
      }
      misses++;
      return undefined;
    },
    put(key, head, body) {
      const answer = { head, body, etag: strongETag(body) };
      entries.set(key, answer);
      return answer;
    },
    stats: () => ({ hits, misses, entries: entries.size, bytes: entries.calculatedSize }),
  };
}

/** `"<base64url SHA-1 of the bytes>"`: equal bodies, equal tags; any change, a new one. */
export function strongETag(body: Buffer): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

/** The cache key of a request: workspace, key kind, and the URL as asked (path and query). */
export function answerKey(req: Request, workspaceId: string, keyKind: string): string {
  return `${workspaceId}\n${keyKind}\n${req.originalUrl}`;
}

/**
 * Sends a 200 JSON answer with its validators, or 304 when the client holds it already. Public-key
 * answers may be kept by shared caches but must be revalidated (the ETag makes that a 304); private-key
 * answers by the client only.
 */
export function sendJsonAnswer(
  req: Request,
  res: Response,
  answer: { body: Buffer; etag: string },
  keyKind: string,
  cacheStatus?: "HIT" | "MISS",
): void {
  res.setHeader("ETag", answer.etag);
  res.setHeader("Cache-Control", keyKind === "private" ? "private, no-cache" : "public, no-cache");
  res.setHeader("Vary", "Authorization");
  if (cacheStatus) res.setHeader("X-Cache", cacheStatus);
  if (holdsETag(req, answer.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type("application/json; charset=utf-8").send(answer.body);
}

function holdsETag(req: Request, etag: string): boolean {
  const header = req.headers["if-none-match"];
  if (!header) return false;
  return header === "*" || header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
