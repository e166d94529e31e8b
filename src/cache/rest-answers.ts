// The REST door's response cache and HTTP validators.
//
// Never stale, by construction: an answer is stored with the head of its workspace's change log (the
// position of the newest event) as read *before* the answer was computed — or, for the post list, in
// the snapshot of the answer's first statement (`headInAnswer`: a miss that nothing could answer for
// any head then costs no statement of its own) — and with what it depends on (answer-dependencies.ts).
// Every content write appends an event in its own transaction (the one writer), so a write that has
// returned has moved the head, on every instance, whoever made it (API, CLI, scheduler). A lookup
// reads the head first, and the caches' change index (change-index.ts) knows every event up to it
// before the lookup runs: the answer is served only if none of its dependencies changed after the
// position it was computed at — a draft save leaves every public answer, an edit of one post leaves
// the other posts' answers. Entries are never invalidated, only outgrown (their bytes live in one
// slab written round, src/cache/answer-slab.ts; the index of keys is an LRU by bytes). An answer
// computed from state newer than the head it was stored with is harmless: it only counts as older than
// it is. Only routes that depend on nothing but the workspace's content opt in (`cached` in the route
// table); the key holds the workspace, the key kind (public and private answers never mix) and the
// whole URL (path and query: filters, pages, format). With CACHE=redis, answers are also kept in Redis
// under the key, with their position and dependencies, for every instance (src/cache/shared-answers.ts):
// a lookup this instance's memory misses asks there before computing, and checks what it finds
// against its own change index.
//
// Every 200 answer of a GET carries a strong ETag (a hash of its bytes); a request whose If-None-Match
// holds it gets 304 without a body. That check is ours, not Express's freshness test, which gives up on
// any request with `Cache-Control: no-cache` — and fetch() sends that header with every conditional
// request.

import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { brotliCompressSync, gzipSync, constants as zlibConstants } from "node:zlib";
import accepts from "accepts";
import type { Request } from "express";
import { LRUCache } from "lru-cache";
import { ANY_CONTENT, MAX_RECORD_DEPENDENCIES } from "./answer-dependencies.ts";
import {
  beforeExpiry,
  boundedCacheControl,
  earlierExpiry,
  expiryFromHeader,
  expiryHeader,
} from "./answer-expiry.ts";
import { AnswerSlab, type SlabSlot } from "./answer-slab.ts";
import { type ChangeIndex, type FreshnessCheck, newFreshnessCheck } from "./change-index.ts";
import { holdsETag, strongETag } from "./etag.ts";
import { packAnswer, type SharedAnswers, unpackAnswer } from "./shared-answers.ts";

type Encoding = "br" | "gzip";

/** An answer ready to send, with what is derived from its bytes once (validators, tags, encodings). */
export interface JsonAnswer {
  body: Buffer;
  etag: string;
  /** Surrogate keys: the workspace, the resource kind, every record id the answer holds. */
  tags: string;
  workspaceId: string;
  /** Every record id the body holds; null when there were more than the tagging bound. */
  ids: readonly string[] | null;
  /** The earliest `unpublishAt` in the body (ms): a post it shows is public to nobody from then on. */
  expiresAt: number | null;
  /** The body compressed: made on first demand, and kept with a stored answer. */
  encoded(encoding: Encoding): Buffer;
}

/** What sending an answer needs: its bytes, validators, tags, encodings and time bound. */
export type SendableAnswer = Omit<JsonAnswer, "workspaceId" | "ids">;

/** A stored answer as served: its bytes copied out of the slab, with where and when it was computed. */
export interface CachedAnswer extends SendableAnswer {
  head: string;
  /** The route template that computed it (`/v1/posts/:identifier`): the metrics label of its hits. */
  route: string;
}

/** What the cache keeps per answer: the derived headers and where its bytes are in the slab. */
interface StoredAnswer {
  head: string;
  /** The head as a number, and the dependency keys whose changes after it make the answer stale. */
  position: number;
  dependencies: readonly string[];
  /** How far the change index has found it unchanged (change-index.ts FreshnessCheck). */
  checked: FreshnessCheck;
  /** Never served from this moment on (ms; null: no bound): the earliest unpublishAt the body shows. */
  expiresAt: number | null;
  workspaceId: string;
  route: string;
  etag: string;
  tags: string;
  body: SlabSlot;
  encoded: Partial<Record<Encoding, SlabSlot>>;
}

/** A slot read once the writer has gone this far round past it is written again (kept while in use). */
const REWRITE_FROM_AGE = 0.5;

export interface ResponseCache {
  /** The workspace's change log head now, once the change index knows every event up to it. */
  head(workspaceId: string): Promise<string>;
  /** A counted lookup of an answer fresh at `head` (read for this request): this instance's memory, then the shared store. */
  lookup(key: string, head: string): Promise<CachedAnswer | undefined>;
  /** This instance's memory only, uncounted: the cached-read door looks first, and counts only what it serves. */
  peek(key: string, head: string): CachedAnswer | undefined;
  /** Whether this instance's memory holds any answer under the key, for whatever head (no head read needed). */
  holds(key: string): boolean;
  /**
   * A lookup that needs no head: true (a counted miss) when no answer under the key could be found for
   * any head — this instance's memory holds none and no shared store could hold one.
   */
  missesForAnyHead(key: string): boolean;
  countHit(): void;
  /**
   * Stores the answer computed at `head`, stale once any of `dependencies` changes (default: anything
   * in the workspace); what it returns keeps the compressed forms it makes for the computing request.
   */
  put(
    key: string,
    head: string,
    route: string,
    answer: JsonAnswer,
    dependencies?: readonly string[],
  ): CachedAnswer;
  stats(): { hits: number; misses: number; entries: number; bytes: number };
}

export interface ResponseCacheOptions {
  /** Reads the workspace's change log head (one indexed statement). */
  contentHead(workspaceId: string): Promise<string>;
  maxBytes: number;
  /** How long an answer is kept at most (a safety net: see CACHE_TTL). */
  ttlMs: number;
  /** Told of every lookup (metrics). */
  onLookup?: (hit: boolean) => void;
  /** The second tier shared by every instance (CACHE=redis). */
  shared?: SharedAnswers;
  /** What changed since an answer was computed; without it an answer is served under its own head only. */
  changes?: ChangeIndex;
}

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const slab = new AnswerSlab(options.maxBytes);
  const entries = new LRUCache<string, StoredAnswer>({
    maxSize: options.maxBytes,
    ttl: options.ttlMs,
    sizeCalculation: (answer, key) => answer.body.length + key.length + 64,
  });
  const { shared, changes } = options;
  /** Unchanged since it was computed, as far as every event up to the request's head goes. */
  // A post whose unpublishAt comes is public to nobody from that instant, before the scheduler records
  // its event (post-visibility.ts): an answer showing it is not served from then on, on any instance.
  const fresh = (stored: Omit<StoredAnswer, "body" | "encoded">, head: string) =>
    beforeExpiry(stored.expiresAt) &&
    (stored.head === head ||
      changes?.isFresh(stored.workspaceId, stored.position, stored.dependencies, stored.checked) === true);
  let hits = 0;
  let misses = 0;
  /** A slot's bytes, written again when the writer is more than half round past them (a hot answer stays). */
  const readSlot = (slot: SlabSlot, refresh: (moved: SlabSlot) => void): Buffer | null => {
    const bytes = slab.read(slot);
    if (bytes && slab.age(slot) > REWRITE_FROM_AGE) {
      const moved = slab.write(bytes);
      if (moved) refresh(moved);
    }
    return bytes;
  };
  /** The stored answer as served, with `body` its bytes (read out, or the computing request's own). */
  const served = (stored: StoredAnswer, body: Buffer): CachedAnswer => ({
    body,
    etag: stored.etag,
    tags: stored.tags,
    head: stored.head,
    route: stored.route,
    expiresAt: stored.expiresAt,
    encoded(encoding) {
      const slot = stored.encoded[encoding];
      const kept =
        slot &&
        readSlot(slot, (moved) => {
          stored.encoded[encoding] = moved;
        });
      if (kept) return kept;
      const made = encode(body, encoding);
      stored.encoded[encoding] = slab.write(made) ?? undefined;
      return made;
    },
  });
  /** Keeps the answer; undefined when it does not fit in the slab at all (it is then not kept). */
  const store = (key: string, header: Omit<StoredAnswer, "body" | "encoded">, body: Buffer) => {
    const slot = slab.write(body);
    if (!slot) return undefined;
    const stored: StoredAnswer = { ...header, body: slot, encoded: {} };
    entries.set(key, stored);
    return stored;
  };
  /** An answer served as it is, not kept. */
  const unkept = (header: Omit<StoredAnswer, "body" | "encoded">, body: Buffer): CachedAnswer => ({
    ...header,
    body,
    encoded: (encoding) => encode(body, encoding),
  });
  /** The answer under the key if its bytes are still in the slab (a stale slot is forgotten). */
  const intact = (key: string) => {
    const stored = entries.get(key);
    if (stored && !slab.holds(stored.body)) {
      entries.delete(key);
      return undefined;
    }
    return stored;
  };
  const peek = (key: string, head: string): CachedAnswer | undefined => {
    const stored = intact(key);
    if (!stored || !fresh(stored, head)) return undefined;
    const body = readSlot(stored.body, (moved) => {
      stored.body = moved;
    });
    return body ? served(stored, body) : undefined;
  };
  const countHit = () => {
    hits++;
    options.onLookup?.(true);
  };
  const counted = (found: CachedAnswer | undefined) => {
    if (found) countHit();
    else {
      misses++;
      options.onLookup?.(false);
    }
    return found;
  };
  return {
    head: options.contentHead,
    missesForAnyHead(key) {
      if (shared || intact(key)) return false;
      counted(undefined);
      return true;
    },
    async lookup(key, head) {
      const found = peek(key, head);
      if (found || !shared) return counted(found);
      const unpacked = fromShared(await shared.get(sharedKey(key)));
      if (!unpacked || !fresh(unpacked.header, head)) return counted(undefined);
      const header = unpacked.header;
      const stored = store(key, header, unpacked.body);
      return counted(stored ? served(stored, unpacked.body) : unkept(header, unpacked.body));
    },
    peek,
    holds: (key) => intact(key) !== undefined,
    countHit,
    put(key, head, route, answer, dependencies = [ANY_CONTENT]) {
      const { etag, tags, workspaceId } = answer;
      const header = {
        etag,
        tags,
        head,
        route,
        workspaceId,
        dependencies,
        position: Number(head),
        checked: newFreshnessCheck(),
        expiresAt: answer.expiresAt,
      };
      const stored = store(key, header, answer.body);
      shared?.set(
        sharedKey(key),
        packAnswer(
          {
            etag,
            tags,
            route,
            workspaceId,
            head,
            dependencies: dependencies.join(" "),
            // Only when bounded: an unbounded answer's header is as before.
            ...expiryHeader(answer.expiresAt),
          },
          answer.body,
        ),
      );
      return stored ? served(stored, answer.body) : { ...answer, head, route };
    },
    stats: () => ({ hits, misses, entries: entries.size, bytes: entries.calculatedSize }),
  };
}

/**
 * The shared store's key of an answer: the memory key, hashed to a fixed length. One entry per key
 * (the newest computed): its position and dependencies travel with it, and each instance checks them
 * against its own change index.
 */
function sharedKey(key: string): string {
  return `rest:${createHash("sha256").update(key).digest("base64url")}`;
}

/** An answer read back from the shared store, or undefined when the bytes are not one. */
function fromShared(
  value: Buffer | null,
): { header: Omit<StoredAnswer, "body" | "encoded">; body: Buffer } | undefined {
  const unpacked = value && unpackAnswer(value);
  if (!unpacked) return undefined;
  const { etag, tags, route, workspaceId, head, dependencies, expiresAt } = unpacked.header;
  const strings = [etag, tags, route, workspaceId, head, dependencies];
  if (!strings.every((value) => typeof value === "string")) return undefined;
  const position = Number(head);
  if (!Number.isSafeInteger(position)) return undefined;
  const bound = expiryFromHeader(expiresAt);
  if (bound === undefined) return undefined;
  return {
    header: {
      etag: etag as string,
      tags: tags as string,
      route: route as string,
      workspaceId: workspaceId as string,
      head: head as string,
      position,
      dependencies: (dependencies as string).split(" ").filter(Boolean),
      checked: newFreshnessCheck(),
      expiresAt: bound,
    },
    body: unpacked.body,
  };
}

/** Bodies below this go out as they are: compressing them saves less than it costs. */
const COMPRESS_FROM_BYTES = 1_024;
/** Surrogate keys beyond this many: the answer is tagged by workspace and kind only (purge those). */
const MAX_TAGGED_IDS = MAX_RECORD_DEPENDENCIES;

/** An answer from its body: validators and surrogate keys (the workspace, `kind`, each record id). */
export function jsonAnswer(value: unknown, workspaceId: string, kind: string): JsonAnswer {
  const body = Buffer.from(JSON.stringify(value));
  const found: Found = { ids: new Set<string>(), expiresAt: null };
  collectIds(value, found);
  const { ids } = found;
  const tagged = ids.size <= MAX_TAGGED_IDS ? [...ids] : null;
  const tags = [`ws-${workspaceId}`, kind, ...(tagged ?? [])].join(" ");
  const encoded: Partial<Record<Encoding, Buffer>> = {};
  return {
    body,
    etag: strongETag(body),
    tags,
    workspaceId,
    ids: tagged,
    expiresAt: found.expiresAt,
    encoded: (encoding) => (encoded[encoding] ??= encode(body, encoding)),
  };
}

/** What a body's walk finds: its record ids (up to the bound) and its earliest `unpublishAt`. */
interface Found {
  ids: Set<string>;
  expiresAt: number | null;
}

function collectIds(value: unknown, found: Found): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) collectIds(value[index], found);
    return;
  }
  // for…in over a plain body object: no entries array per object (this runs on every computed answer).
  const record = value as Record<string, unknown>;
  for (const name in record) {
    const item = record[name];
    if (typeof item === "string") {
      if (name === "id") {
        if (found.ids.size <= MAX_TAGGED_IDS) found.ids.add(item);
      } else if (name === "unpublishAt") {
        // A post body's scheduled unpublish (only set ones are shown): the answer's bound.
        found.expiresAt = earlierExpiry(found.expiresAt, item);
      }
    } else if (typeof item === "object") collectIds(item, found);
  }
}

/** The cache key of a request: workspace, what the key may see (its fingerprint), and the URL as asked. */
export function answerKey(req: IncomingMessage, workspaceId: string, fingerprint: string): string {
  // Express's originalUrl is the URL as received; the cached-read door sees it before Express sets it.
  return `${workspaceId}\n${fingerprint}\n${(req as Request).originalUrl ?? req.url}`;
}

/**
 * Who may keep an answer: shared caches (public keys); the client only, revalidating (private keys);
 * nobody (a read through a preview token: it shows unpublished content, and the token's expiry or
 * revocation changes no content, so no validator could ever tell a cache that the answer is gone).
 */
export type AnswerAudience = "public" | "private" | "nobody";

/** Which CDN tag header answers carry (CACHE_TAG_HEADER). */
export type TagHeaderForm = "surrogate-key" | "cache-tag" | "both" | "none";

/** How answers are labelled for caches downstream: the Cache-Control of each audience, and the CDN tag header. */
export type CacheControlPolicy = Record<AnswerAudience, string> & { tagHeader: TagHeaderForm };

/**
 * Public answers: revalidated on every use (`no-cache`: the ETag makes that a 304), unless shared caches
 * may keep them for a while (CACHE_S_MAXAGE: a CDN that is purged by surrogate key from a webhook) or
 * serve them stale while revalidating (CACHE_STALE_WHILE_REVALIDATE). Browsers always revalidate
 * (`max-age=0`): they are not purged. Private answers never reach a shared cache.
 */
export function cacheControlPolicy(settings: {
  sharedMaxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
  tagHeader?: TagHeaderForm;
}): CacheControlPolicy {
  const { sharedMaxAgeSeconds, staleWhileRevalidateSeconds } = settings;
  const shared = [
    ...(sharedMaxAgeSeconds > 0 ? [`s-maxage=${sharedMaxAgeSeconds}`] : []),
    ...(staleWhileRevalidateSeconds > 0 ? [`stale-while-revalidate=${staleWhileRevalidateSeconds}`] : []),
  ];
  return {
    public: shared.length ? ["public", "max-age=0", ...shared].join(", ") : "public, no-cache",
    private: "private, no-cache",
    nobody: "private, no-store",
    tagHeader: settings.tagHeader ?? "surrogate-key",
  };
}

/**
 * Sends a 200 JSON answer with its validators, or 304 when the client holds it already, with the
 * Cache-Control of its audience (the ETag makes a revalidation a 304). Node's own response methods
 * only: the cached-read door sends hits with it before Express has dressed the request.
 */
export function sendJsonAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: SendableAnswer,
  cacheControl: string,
  tagHeader: TagHeaderForm,
  cacheStatus?: "HIT" | "MISS",
  /** A read with `locale=auto` (src/rest/auto-locale.ts): the answer depends on Accept-Language too. */
  varyLanguage = false,
): void {
  const encoding = answer.body.length >= COMPRESS_FROM_BYTES ? preferredEncoding(req) : null;
  // One tag per representation (RFC 9110): the compressed bytes are not the identity's.
  const etag = encoding ? `${answer.etag.slice(0, -1)}-${encoding}"` : answer.etag;
  res.setHeader("ETag", etag);
  res.setHeader("Cache-Control", boundedCacheControl(cacheControl, answer.expiresAt));
  // A key bound to origins has its answer name the request's origin (src/http/cors.ts): it varies by it.
  const namesOrigin = (res.getHeader("Access-Control-Allow-Origin") ?? "*") !== "*";
  const vary = namesOrigin ? "Authorization, Accept-Encoding, Origin" : "Authorization, Accept-Encoding";
  res.setHeader("Vary", varyLanguage ? `${vary}, Accept-Language` : vary);
  if (tagHeader === "surrogate-key" || tagHeader === "both") res.setHeader("Surrogate-Key", answer.tags);
  if (tagHeader === "cache-tag" || tagHeader === "both")
    res.setHeader("Cache-Tag", answer.tags.replaceAll(" ", ","));
  if (cacheStatus) res.setHeader("X-Cache", cacheStatus);
  if (holdsETag(req.headers["if-none-match"], answer.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  let body = answer.body;
  if (encoding) {
    body = answer.encoded(encoding);
    res.setHeader("Content-Encoding", encoding);
  }
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", String(body.length));
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Brotli when the client takes it (it is smaller), else gzip, else none. */
function preferredEncoding(req: IncomingMessage): "br" | "gzip" | null {
  const header = req.headers["accept-encoding"];
  if (!header) return null;
  const accepted = accepts(req);
  if (accepted.encoding("br") === "br") return "br";
  return accepted.encoding("gzip") === "gzip" ? "gzip" : null;
}

function encode(body: Buffer, encoding: "br" | "gzip"): Buffer {
  // Brotli at a middle quality: most of the size win of 11 at a small part of its cost.
  return encoding === "br"
    ? brotliCompressSync(body, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzipSync(body);
}
