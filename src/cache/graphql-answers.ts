// The GraphQL door's stored answers (the rule that keeps them fresh: src/graphql/use-content-response-
// cache.ts). Kept apart from the Yoga plugin so that the cached-read door (src/http/cached-read-door.ts)
// can answer a POST /graphql hit from the same store, under the same key, before Express and Yoga run.
// Each answer keeps the head it was computed at and what it depends on (answer-dependencies.ts); it is
// served only while the change index (change-index.ts) says none of that changed since — in memory and
// when another instance reads it back from the shared store.

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { beforeExpiry, expiryFromHeader, expiryHeader } from "./answer-expiry.ts";
import { type ChangeIndex, type FreshnessCheck, newFreshnessCheck } from "./change-index.ts";
import { strongETag } from "./etag.ts";
import { packAnswer, type SharedAnswers, unpackAnswer } from "./shared-answers.ts";

export interface GraphQLAnswer {
  /** The result's data as executed (Yoga serves a hit through its result processor). */
  data: unknown;
  /** The answer as sent (`{"data":…}`): served as it is, never serialised again. */
  text: string;
  bytes: number;
  etag: string;
  /** Where it was computed: the workspace, its head then, and the keys whose changes make it stale. */
  workspaceId: string;
  head: string;
  dependencies: readonly string[];
  /**
   * Never served from this moment on (ms; null: no bound): the earliest unpublishAt of the posts it
   * returned, public to nobody from then on, before the scheduler records its event.
   */
  expiresAt?: number | null;
}

/** What the answer is of: who asks (workspace, what the key may see) and the operation as sent. */
export interface GraphQLAnswerKey {
  workspaceId: string;
  /** src/auth/scopes.ts scopeFingerprint. */
  fingerprint: string;
  query: string;
  operationName: string | null | undefined;
  variables: unknown;
}

export interface GraphQLAnswers {
  keyOf(parts: GraphQLAnswerKey): string;
  /**
   * A counted lookup (hit or miss, for the metrics) of an answer fresh at `head` (read for this request,
   * known to the change index): this instance's memory, then the shared store.
   */
  lookup(key: string, head: string): Promise<GraphQLAnswer | undefined>;
  /** This instance's memory only, uncounted: the cached-read door looks first, and counts only what it serves. */
  peek(key: string, head: string): GraphQLAnswer | undefined;
  countHit(): void;
  set(key: string, answer: GraphQLAnswer): void;
  bytes(): number;
}

export function createGraphQLAnswers(options: {
  maxBytes: number;
  /**
   * The largest answer the door may send (GRAPHQL_MAX_RESPONSE_BYTES): a larger one is never stored,
   * and one stored larger (by an instance with a higher limit, in the shared store) is never served.
   */
  maxAnswerBytes: number;
  /** How long an answer is kept at most (a safety net: see CACHE_TTL). */
  ttlMs: number;
  onLookup?: (hit: boolean) => void;
  /** The second tier shared by every instance (CACHE=redis): the answer's text under its key. */
  shared?: SharedAnswers;
  /** What changed since an answer was computed; without it an answer is served under its own head only. */
  changes?: ChangeIndex;
}): GraphQLAnswers {
  const answers = new LRUCache<string, GraphQLAnswer>({
    maxSize: options.maxBytes,
    ttl: options.ttlMs,
    sizeCalculation: (entry, key) => entry.bytes + key.length,
  });
  const { shared, changes } = options;
  /** How far the change index has found each kept answer unchanged (change-index.ts FreshnessCheck). */
  const checks = new WeakMap<GraphQLAnswer, FreshnessCheck>();
  const checkOf = (answer: GraphQLAnswer) => {
    const kept = checks.get(answer);
    if (kept) return kept;
    const check = newFreshnessCheck();
    checks.set(answer, check);
    return check;
  };
  const fresh = (answer: GraphQLAnswer, head: string) =>
    answer.bytes <= options.maxAnswerBytes &&
    beforeExpiry(answer.expiresAt) &&
    (answer.head === head ||
      changes?.isFresh(answer.workspaceId, Number(answer.head), answer.dependencies, checkOf(answer)) ===
        true);
  const counted = (hit: GraphQLAnswer | undefined) => {
    options.onLookup?.(hit !== undefined);
    return hit;
  };
  return {
    keyOf: (parts) =>
      createHash("sha256")
        .update(
          JSON.stringify([
            parts.workspaceId,
            parts.fingerprint,
            parts.query,
            parts.operationName ?? null,
            parts.variables ?? null,
          ]),
        )
        .digest("base64url"),
    async lookup(key, head) {
      const hit = answers.get(key);
      if (hit && fresh(hit, head)) return counted(hit);
      if (!shared) return counted(undefined);
      const stored = fromShared(await shared.get(`graphql:${key}`), options.maxAnswerBytes);
      if (!stored || !fresh(stored, head)) return counted(undefined);
      answers.set(key, stored);
      return counted(stored);
    },
    peek(key, head) {
      const hit = answers.get(key);
      return hit && fresh(hit, head) ? hit : undefined;
    },
    countHit: () => options.onLookup?.(true),
    set(key, answer) {
      if (answer.bytes > options.maxAnswerBytes) return;
      answers.set(key, answer);
      const { workspaceId, head } = answer;
      shared?.set(
        `graphql:${key}`,
        packAnswer(
          {
            workspaceId,
            head,
            dependencies: answer.dependencies.join(" "),
            // Only when bounded: an unbounded answer's header is as before.
            ...expiryHeader(answer.expiresAt),
          },
          Buffer.from(answer.text),
        ),
      );
    },
    bytes: () => answers.calculatedSize,
  };
}

/** An answer from its stored header and text (`{"data":…}`), or undefined when the bytes are not one. */
function fromShared(value: Buffer | null, maxAnswerBytes: number): GraphQLAnswer | undefined {
  const unpacked = value && unpackAnswer(value);
  // Not even parsed when the door may not send it.
  if (!unpacked || unpacked.body.length > maxAnswerBytes) return undefined;
  const { workspaceId, head, dependencies, expiresAt } = unpacked.header;
  if (typeof workspaceId !== "string" || typeof head !== "string" || typeof dependencies !== "string")
    return undefined;
  if (!Number.isSafeInteger(Number(head))) return undefined;
  const bound = expiryFromHeader(expiresAt);
  if (bound === undefined) return undefined;
  try {
    const text = unpacked.body.toString("utf8");
    const parsed = JSON.parse(text) as { data?: unknown } | null;
    if (typeof parsed !== "object" || parsed === null || !("data" in parsed)) return undefined;
    return {
      data: parsed.data,
      text,
      bytes: unpacked.body.length,
      etag: strongETag(unpacked.body),
      workspaceId,
      head,
      dependencies: dependencies.split(" ").filter(Boolean),
      expiresAt: bound,
    };
  } catch {
    return undefined;
  }
}
