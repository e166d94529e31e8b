// The GraphQL door's response cache, on the same never-stale rule as the REST door's
// (src/rest/response-cache.ts): an answer is stored under a key that holds the head of the workspace's
// change log, read before the answer is computed, so a committed write — on any instance — makes every
// earlier answer unreachable; nothing is ever invalidated, only outgrown (LRU by bytes).
//
// The key also holds the key kind (public and private answers never mix), the document, the operation
// name and the variables. Only queries are stored, only without errors, and only when no root field
// reads state that moves without an event (webhook endpoints and deliveries; the change log and the
// change feed, pruned by age, whose cursors carry the time they were issued). REST's in-process
// executions never pass through here: Yoga calls `onParams` for HTTP requests only, and REST caches its
// own bodies. Served answers carry `X-Cache: HIT`, stored ones `MISS`.
import { createHash } from "node:crypto";
import type { ExecutionResult } from "graphql";
import { type DocumentNode, Kind, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";

/** Root fields whose answers change without a change log event: never cached. */
const UNCACHEABLE_ROOT_FIELDS = new Set([
  "events",
  "changes",
  "webhookEndpoint",
  "webhookEndpoints",
  "webhookDeliveries",
]);

interface Caller {
  workspaceId: string;
  keyKind: string;
}

export interface ContentResponseCacheOptions {
  contentHead(workspaceId: string): Promise<string>;
  maxBytes: number;
}

export function useContentResponseCache(options: ContentResponseCacheOptions): Plugin {
  const answers = new LRUCache<string, { result: ExecutionResult; bytes: number }>({
    maxSize: options.maxBytes,
    sizeCalculation: (entry, key) => entry.bytes + key.length,
  });
  /** The key of the request being executed, until its result is stored. */
  const keyByRequest = new WeakMap<Request, string>();

  return {
    onParams({ params, request, context, setResult }) {
      const serverContext = context as {
        req?: { caller?: Caller | null };
        res?: { setHeader(n: string, v: string): void };
      };
      const caller = serverContext.req?.caller;
      if (!caller || !params.query) return;
      // The cache is an optimization: when the head cannot be read, the request runs uncached (and
      // meets the same database trouble in its resolvers, reported as such).
      return options.contentHead(caller.workspaceId).then(
        (head) => {
          const key = createHash("sha256")
            .update(
              JSON.stringify([
                caller.workspaceId,
                caller.keyKind,
                head,
                params.query,
                params.operationName ?? null,
                params.variables ?? null,
              ]),
            )
            .digest("base64url");
          const hit = answers.get(key);
          if (hit) {
            serverContext.res?.setHeader("X-Cache", "HIT");
            setResult(hit.result);
            return;
          }
          keyByRequest.set(request, key);
        },
        () => undefined,
      );
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      const key = request ? keyByRequest.get(request) : undefined;
      if (!key || !cacheable(args.document, args.operationName ?? null)) return;
      return {
        onExecuteDone({ result }) {
          if (!("data" in result) || result.errors?.length || !result.data) return;
          const bytes = JSON.stringify(result.data).length;
          answers.set(key, { result: { data: result.data }, bytes });
          const res = (args.contextValue as { res?: { setHeader(n: string, v: string): void } }).res;
          res?.setHeader("X-Cache", "MISS");
        },
      };
    },
  };
}

/** A query whose root selections are plain fields, none of them uncacheable. */
function cacheable(document: DocumentNode, operationName: string | null): boolean {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operation =
    operationName === null
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((o) => o.name?.value === operationName);
  if (operation?.operation !== "query") return false;
  return operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && !UNCACHEABLE_ROOT_FIELDS.has(selection.name.value),
  );
}
