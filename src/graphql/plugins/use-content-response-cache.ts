// The GraphQL door's response cache, on the same never-stale rule as the REST door's
// (src/cache/rest-answers.ts): an answer is stored with the head of the workspace's change log, read
// before the answer is computed, and with what it depends on (src/cache/answer-dependencies.ts: the
// records it returned when its document asks for records and their own data, plus the listings when it
// lists posts; else the whole content its key kind sees); it is served only while nothing it depends on
// has changed since, as far as every event up to the request's own head goes — so a draft save leaves
// public answers, an edit of one post leaves the answers that do not hold it, and any write that
// changes an answer, on any instance, makes it a miss.
// Nothing is ever invalidated, only outgrown (LRU by bytes).
//
// The key also holds the key kind (public and private answers never mix), the document, the operation
// name and the variables. Only queries are stored, only without errors, and only when no root field
// reads state that moves without an event (webhook endpoints and deliveries; the change log and the
// change feed, pruned by age, whose cursors carry the time they were issued; reads through a preview
// token, which expires or is revoked without one). REST's in-process
// executions never pass through here: Yoga calls `onParams` for HTTP requests only, and REST caches its
// own bodies. Served answers carry `X-Cache: HIT`, stored ones `MISS`.
//
// GraphQL GET requests (queries in the URL, or persisted by hash: use-persisted-documents.ts) are HTTP
// caching's own: a cached or cacheable answer carries a strong ETag (a hash of its data) and the same
// Cache-Control and Vary as REST's, and `If-None-Match` holding it gets 304 without a body. POST answers
// carry no validators (browsers and CDNs do not cache POST).

import type { ExecutionResult } from "graphql";
import { type DocumentNode, Kind, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { ReadAudience } from "../../auth/scopes.ts";
import { graphqlAnswerDependencies } from "../../cache/answer-dependencies.ts";
import { boundedCacheControl } from "../../cache/answer-expiry.ts";
import { holdsETag, strongETag } from "../../cache/etag.ts";
import type { GraphQLAnswer, GraphQLAnswers } from "../../cache/graphql-answers.ts";
import { answerExpiry, answerRecords, collectAnswerRecords } from "../execution/answer-records.ts";
import { answerShape } from "../execution/answer-shape.ts";
import { readsPreview } from "./use-preview-no-store.ts";
import { sizeCapped } from "./use-response-size-limit.ts";

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
  audience: ReadAudience;
  fingerprint: string;
}

export interface ContentResponseCacheOptions {
  contentHead(workspaceId: string): Promise<string>;
  /** Where answers are kept (shared with the cached-read door). */
  answers: GraphQLAnswers;
  /** Cache-Control of public-key and private-key answers (REST's: CACHE_S_MAXAGE, …). */
  cacheControl: { public: string; private: string };
  /**
   * GRAPHQL_MAX_RESPONSE_BYTES. This plugin runs before the size limit's (use-response-size-limit.ts),
   * so it sees an answer before the limit refuses it: it measures it itself and never stores one the
   * limit refuses (the store also refuses it, and never serves one: graphql-answers.ts).
   */
  maxResponseBytes: number;
}

/**
 * The stored result as Yoga's result processor sends it: Yoga serialises a result with its own
 * `stringify` when it has one (the hook graphql-jit uses), so a hit costs no JSON.stringify.
 */
function servedAsStored(entry: GraphQLAnswer): ExecutionResult {
  return Object.assign({ data: entry.data as ExecutionResult["data"] }, { stringify: () => entry.text });
}

export function useContentResponseCache(options: ContentResponseCacheOptions): Plugin {
  const { answers } = options;
  /** The key of the request being executed and the head read for it, until its result is stored. */
  const keyByRequest = new WeakMap<Request, { key: string; head: string; workspaceId: string }>();
  /** The answer a request was served from or stored as, and its caller's key kind: its validators. */
  const answerByRequest = new WeakMap<Request, { entry: GraphQLAnswer; audience: ReadAudience }>();

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
        async (head) => {
          const key = answers.keyOf({
            workspaceId: caller.workspaceId,
            fingerprint: caller.fingerprint,
            query: params.query as string,
            operationName: params.operationName,
            variables: params.variables,
          });
          const hit = await answers.lookup(key, head);
          if (hit) {
            serverContext.res?.setHeader("X-Cache", "HIT");
            answerByRequest.set(request, { entry: hit, audience: caller.audience });
            setResult(servedAsStored(hit));
            return;
          }
          keyByRequest.set(request, { key, head, workspaceId: caller.workspaceId });
        },
        () => undefined,
      );
    },
    onExecute({ args }) {
      const context = args.contextValue as {
        request?: Request;
        req?: { caller?: Caller | null };
        res?: { setHeader(n: string, v: string): void };
      };
      const request = context.request;
      const pending = request ? keyByRequest.get(request) : undefined;
      const audience = context.req?.caller?.audience;
      if (!request || !pending || !audience) return;
      const operation = cacheableOperation(args.document, args.operationName ?? null);
      if (!operation) return;
      const { key, head, workspaceId } = pending;
      const shape = answerShape(args.schema, args.document, operation);
      // Every shape: the records' ids serve records and listings; their unpublishAt bounds any answer.
      collectAnswerRecords(args.contextValue as object);
      return {
        onExecuteDone({ result }) {
          if (!("data" in result) || result.errors?.length || !result.data) return;
          // Measured before it is serialised: an oversized answer is never turned into a string.
          if (sizeCapped(result, options.maxResponseBytes) !== result) return;
          const text = JSON.stringify({ data: result.data });
          const body = Buffer.from(text);
          const entry: GraphQLAnswer = {
            data: result.data,
            text,
            bytes: body.length,
            etag: strongETag(body),
            workspaceId,
            head,
            dependencies: graphqlAnswerDependencies(
              audience,
              shape,
              answerRecords(args.contextValue as object),
            ),
            expiresAt: answerExpiry(args.contextValue as object),
          };
          answers.set(key, entry);
          answerByRequest.set(request, { entry, audience });
          context.res?.setHeader("X-Cache", "MISS");
        },
      };
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      const answered = answerByRequest.get(request);
      if (!answered || request.method !== "GET" || response.status !== 200) return;
      const headers = validatorHeaders(answered.entry, answered.audience, options.cacheControl);
      if (holdsETag(request.headers.get("if-none-match"), answered.entry.etag)) {
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
        return;
      }
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}

/** As REST's: public answers may be kept by shared caches, private ones by the client only. */
function validatorHeaders(
  answer: { etag: string; expiresAt?: number | null },
  audience: ReadAudience,
  cacheControl: ContentResponseCacheOptions["cacheControl"],
): Record<string, string> {
  return {
    ETag: answer.etag,
    "Cache-Control": boundedCacheControl(cacheControl[audience], answer.expiresAt),
    Vary: "Authorization, Accept",
  };
}

/** The operation, if it is a query whose root selections are plain fields, none of them uncacheable. */
function cacheableOperation(
  document: DocumentNode,
  operationName: string | null,
): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operation =
    operationName === null
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((o) => o.name?.value === operationName);
  // A preview read expires and is revoked without an event: its answer would outlive its token.
  if (operation?.operation !== "query" || readsPreview(document)) return undefined;
  const storable = operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && !UNCACHEABLE_ROOT_FIELDS.has(selection.name.value),
  );
  return storable ? operation : undefined;
}
