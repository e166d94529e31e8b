// What every resolver receives: who is calling (resolved once per request by the HTTP layer),
// per-request dataloaders, and the app's services.

import { scopeRefusal } from "../auth/access-rules.ts";
import type { ApiKeyKind } from "../auth/api-key-format.ts";
import type { ReadAudience, Scope } from "../auth/scopes.ts";
import type { GraphQLAnswers } from "../cache/graphql-answers.ts";
import type { Config } from "../config.ts";
import type { ReplicaRouter } from "../db/replica-router.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { MediaStorage } from "../media/storage.ts";
import { forbiddenError, unauthenticatedError } from "./errors.ts";
import type { ChangeStream } from "./live/change-stream.ts";
import { createLoaders, type Loaders } from "./loaders.ts";

export interface RequestCaller {
  /** Null for the keyless, read-only `/v1/{workspace_id}/…` routes. */
  keyId: string | null;
  workspaceId: string;
  keyKind: ApiKeyKind;
  /** How the key is shown (its first characters); absent for keyless reads. */
  keyHint?: string;
  /** What the key may do (src/auth/scopes.ts); keyless reads have a public key's. */
  scopes: ReadonlySet<Scope>;
  /** Whether its reads see drafts: what read answers (and their caches) depend on. */
  audience: ReadAudience;
  /** What the key may see, as cache keys name it (src/auth/scopes.ts scopeFingerprint). */
  fingerprint: string;
  /** The client address ranges the key is bound to (empty: any): keys it makes stay within them. */
  allowedAddresses: readonly string[];
  /** The browser origins a public key is bound to (empty: any): answers name the request's origin. */
  allowedOrigins: readonly string[];
}

export interface AppServices {
  config: Config;
  /** Raw SQL on the app's database (full-text search). */
  sql: SqlExecutor;
  logger: Logger;
  mediaStorage: MediaStorage;
  /** Live changes for subscriptions; absent where nothing serves them (in-process test executors). */
  changes?: ChangeStream;
  /** The workspace's change log head and the answer store; either absent: GraphQL answers are not cached. */
  contentHead?: (workspaceId: string) => Promise<string>;
  graphqlAnswers?: GraphQLAnswers;
  /** Where GraphQL reports its measurements (src/metrics.ts); absent: nothing is measured. */
  metrics?: GraphQLObservers;
  /** Read replicas (DATABASE_REPLICA_URLS); absent: every read on `sql` and the app's client. */
  replicas?: ReplicaRouter;
  /** Signs and checks preview tokens (first-start.ts resolvePreviewSecret); absent: previews are off. */
  previewSecret?: string;
}

/** What the GraphQL layer measures: operation durations and its response cache. */
export interface GraphQLObservers {
  observeOperation(name: string | null, type: string, seconds: number): void;
}

/**
 * Asked by a REST read that the response cache will store under the change log head its answer was
 * computed at (src/rest/router.ts). Whoever runs the answer's first statement fills it in, read no
 * later than that statement's snapshot (a post page reads it in the same statement, post-list.ts), so
 * that everything the answer shows is at least as new as the head; null until then (and then nothing
 * is stored).
 */
export interface AnswerHead {
  head: string | null;
}

export interface GraphQLContext {
  /** Pothos' prisma plugin takes the client from here because each app (and test) has its own database. */
  prisma: PrismaClient;
  /** Raw SQL for this request's reads: the primary's, or a replica's for a query (replica-reads.ts). */
  sql: SqlExecutor;
  /** The position of the client's own last write, from its Write-Position header (replica-reads.ts). */
  writePosition: bigint | null;
  /** Set once the request's reads have been given their target. */
  readsRouted?: boolean;
  caller: RequestCaller;
  loaders: Loaders;
  services: AppServices;
  answerHead?: AnswerHead;
  /** The client's HTTP connection, for a subscription the service ends; absent in-process. */
  connection?: ClientConnection;
}

export interface ClientConnection {
  /** Closes the connection unless its response has been sent whole within `graceMs`. */
  closeUnlessAnsweredWithin(graceMs: number): void;
}

declare module "express-serve-static-core" {
  interface Request {
    /** The head this request's answer is computed at, when the REST router asks for it (see AnswerHead). */
    answerHead?: AnswerHead;
  }
}

export function createGraphQLContext(
  prisma: PrismaClient,
  services: AppServices,
  caller: RequestCaller | null | undefined,
  answerHead?: AnswerHead,
  connection?: ClientConnection,
  writePosition: bigint | null = null,
): GraphQLContext {
  if (!caller) throw unauthenticatedError();
  const { sql } = services;
  return {
    prisma,
    sql,
    writePosition,
    caller,
    services,
    loaders: createLoaders(sql),
    answerHead,
    connection,
  };
}

/** Refuses (FORBIDDEN with `requiredScope`) a caller without `scope` (src/auth/access-rules.ts). */
export function assertScope(ctx: GraphQLContext, scope: Scope): void {
  const refusal = scopeRefusal(ctx.caller, scope);
  if (refusal) throw forbiddenError(refusal, { requiredScope: scope });
}

/** Who a write comes from, for post revisions: the key's id and hint, never the secret. */
export function writeOrigin(ctx: GraphQLContext) {
  const { keyId, keyHint, keyKind } = ctx.caller;
  return {
    actor: keyId ? { keyId, name: `${keyKind} key ${keyHint ?? keyId}` } : null,
    keepRevisions: ctx.services.config.revisions.keep,
  };
}

/** Drafts and scheduled posts are unpublished content: only keys with `drafts:read` see them, whichever field reaches them. */
export function assertCanReadDrafts(ctx: GraphQLContext): void {
  assertScope(ctx, "drafts:read");
}
