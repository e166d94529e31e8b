// The GraphQL door's stored answers (the rule that keeps them fresh: src/graphql/use-content-response-
// cache.ts). Kept apart from the Yoga plugin so that the cached-read door (src/http/cached-read-door.ts)
// can answer a POST /graphql hit from the same store, under the same key, before Express and Yoga run.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";

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
  /** A counted lookup (hit or miss, for the metrics). */
  get(key: string): GraphQLAnswer | undefined;
  /** An uncounted one: the cached-read door looks first, and counts only what it serves. */
  peek(key: string): GraphQLAnswer | undefined;
  countHit(): void;
  set(key: string, answer: GraphQLAnswer): void;
  bytes(): number;
}

export function createGraphQLAnswers(options: {
  maxBytes: number;
  onLookup?: (hit: boolean) => void;
}): GraphQLAnswers {
  const answers = new LRUCache<string, GraphQLAnswer>({
    maxSize: options.maxBytes,
    sizeCalculation: (entry, key) => entry.bytes + key.length,
  });
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
    get(key) {
      const hit = answers.get(key);
      options.onLookup?.(hit !== undefined);
      return hit;
    },
    peek: (key) => answers.get(key),
    countHit: () => options.onLookup?.(true),
    set(key, answer) {
      answers.set(key, answer);
    },
    bytes: () => answers.calculatedSize,
  };
}
