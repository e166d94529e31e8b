// The GraphQL door's stored answers (the rule that keeps them fresh: src/graphql/use-content-response-
// cache.ts). Kept apart from the Yoga plugin so that the cached-read door (src/http/cached-read-door.ts)
// can answer a POST /graphql hit from the same store, under the same key, before Express and Yoga run.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { strongETag } from "./etag.ts";
import type { SharedAnswers } from "./shared-answers.ts";

export interface GraphQLAnswer {
  /** The result's data as executed (Yoga serves a hit through its result processor). */
  data: unknown;
  /** The answer as sent (`{"data":…}`): served as it is, never serialised again. */
  text: string;
  bytes: number;
  etag: string;
}

/** What the answer depends on: who asks (workspace, key kind), the head, and the operation as sent. */
export interface GraphQLAnswerKey {
  workspaceId: string;
  keyKind: string;
  head: string;
  query: string;
  operationName: string | null | undefined;
  variables: unknown;
}

export interface GraphQLAnswers {
  keyOf(parts: GraphQLAnswerKey): string;
  /** A counted lookup (hit or miss, for the metrics): this instance's memory, then the shared store. */
  lookup(key: string): Promise<GraphQLAnswer | undefined>;
  /** This instance's memory only, uncounted: the cached-read door looks first, and counts only what it serves. */
  peek(key: string): GraphQLAnswer | undefined;
  countHit(): void;
  set(key: string, answer: GraphQLAnswer): void;
  bytes(): number;
}

export function createGraphQLAnswers(options: {
  maxBytes: number;
  /** How long an answer is kept at most (a safety net: see CACHE_TTL). */
  ttlMs: number;
  onLookup?: (hit: boolean) => void;
  /** The second tier shared by every instance (CACHE=redis): the answer's text under its key. */
  shared?: SharedAnswers;
}): GraphQLAnswers {
  const answers = new LRUCache<string, GraphQLAnswer>({
    maxSize: options.maxBytes,
    ttl: options.ttlMs,
    sizeCalculation: (entry, key) => entry.bytes + key.length,
  });
  const { shared } = options;
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
            parts.keyKind,
            parts.head,
            parts.query,
            parts.operationName ?? null,
            parts.variables ?? null,
          ]),
        )
        .digest("base64url"),
    async lookup(key) {
      const hit = answers.get(key);
      if (hit || !shared) return counted(hit);
      const stored = fromShared(await shared.get(`graphql:${key}`));
      if (stored) answers.set(key, stored);
      return counted(stored);
    },
    peek: (key) => answers.get(key),
    countHit: () => options.onLookup?.(true),
    set(key, answer) {
      answers.set(key, answer);
      shared?.set(`graphql:${key}`, Buffer.from(answer.text));
    },
    bytes: () => answers.calculatedSize,
  };
}

/** An answer from its stored text (`{"data":…}`), or undefined when the bytes are not one. */
function fromShared(value: Buffer | null): GraphQLAnswer | undefined {
  if (!value) return undefined;
  try {
    const text = value.toString("utf8");
    const parsed = JSON.parse(text) as { data?: unknown } | null;
    if (typeof parsed !== "object" || parsed === null || !("data" in parsed)) return undefined;
    return { data: parsed.data, text, bytes: value.length, etag: strongETag(value) };
  } catch {
    return undefined;
  }
}
