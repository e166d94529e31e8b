// The wiring of one instance's services, before any route is mounted: the key cache, the change log's
// head, measurements, both doors' answer stores, the GraphQL executor and REST's compiled queries.
// routes.ts mounts them; build-app.ts composes the two with the cached-read door.
import type express from "express";
import { type CallerResolver, createCallerResolver } from "../auth/caller-cache.ts";
import { createKeyUseRecorder } from "../auth/key-use-recorder.ts";
import { createChangeIndex } from "../cache/change-index.ts";
import { createGraphQLAnswers, type GraphQLAnswers } from "../cache/graphql-answers.ts";
import { cacheControlPolicy, createResponseCache, type ResponseCache } from "../cache/rest-answers.ts";
import type { SharedAnswers } from "../cache/shared-answers.ts";
import type { Config } from "../config.ts";
import { createLogHeadReader } from "../content/changes/log-head-reader.ts";
import { loggedChangesBetween } from "../content/changes/log-tail.ts";
import { createTrackedLogHead, headsMovedBy } from "../content/changes/tracked-log-head.ts";
import { webhookQueueState } from "../content/deliveries/webhook-deliveries.ts";
import { onCommittedChanges, recordCommitPositions } from "../content/writer.ts";
import type { Database } from "../db/database.ts";
import { resolvePreviewSecret } from "../first-start.ts";
import type { AppServices } from "../graphql/context.ts";
import { createInProcessQueries, type InProcessQueries } from "../graphql/execution/in-process-queries.ts";
import type { ChangeStream } from "../graphql/live/change-stream.ts";
import { type ContentYoga, createContentYoga, requestContext } from "../graphql/yoga.ts";
import { requestBudget } from "../limits/rate-budgets.ts";
import type { RateLimitIdentity } from "../limits/rate-limit-middleware.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import type { Logger } from "../logger.ts";
import type { MediaStorage } from "../media/storage.ts";
import { VariantRecords } from "../media/variant-records.ts";
import { createMetrics, type ServiceMetrics } from "../metrics.ts";

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  rateLimiter: RateLimiter;
  mediaStorage: MediaStorage;
  /** Reported by /ready; the server flips it when draining. */
  isShuttingDown?: () => boolean;
  /** Live changes for GraphQL subscriptions (bootstrap.ts createChangeStream); none: subscriptions refuse. */
  changes?: ChangeStream;
  /** The API key cache, when the caller also clears it on other instances' key changes (bootstrap.ts). */
  callers?: CallerResolver;
  /** Where measurements go (its query observer must be the database's: openRuntime); default: a new registry. */
  metrics?: ServiceMetrics;
  /** The response caches' tier shared by every instance (CACHE=redis: openRuntime makes it). */
  sharedAnswers?: SharedAnswers;
}

export interface AppWiring {
  callers: CallerResolver;
  /** The workspace's change log head, as the caches read it. */
  contentHead: (workspaceId: string) => Promise<string>;
  metrics: ServiceMetrics;
  /** Both doors' answer stores; absent with CACHE=off. */
  graphqlAnswers?: GraphQLAnswers;
  restCache?: ResponseCache;
  cacheControl: ReturnType<typeof cacheControlPolicy>;
  yoga: ContentYoga;
  queries: InProcessQueries;
  /** Whose budget a request spends: its key's, or its address's without one. */
  identify: (req: express.Request) => RateLimitIdentity;
}

export function wireServices(deps: AppDeps): AppWiring {
  const { config, db, logger } = deps;
  const callers = deps.callers ?? createCallerResolver(db.prisma, { keyUses: createKeyUseRecorder(db.sql) });
  // A key revoked or issued through this instance is seen at once here (other instances within the
  // cache's lifetime).
  onCommittedChanges(db.prisma, (changes) => {
    if (changes.some((change) => change.resource === "api_key")) callers.clear();
  });
  // One statement answers every request that arrived before it started (log-head-reader.ts). On a
  // database only this process writes (embedded, in memory), the head is kept until a write moves it, and
  // each write hands its events to the change index and its new head to the kept one after COMMIT: the
  // reads after a write need no statement (one connection serves the embedded store, so those reads
  // waited behind the write's own read-back; change-log.ts WorkspaceAppend says why only there).
  const onlyWriter = db.kind !== "postgres";
  const readHead = createLogHeadReader(db.sql);
  // What changed since each cached answer was computed (change-index.ts): the caches are handed a head
  // only once the index knows every event up to it, so a lookup can tell which answers a write left.
  const changes = createChangeIndex({
    readChanges: (workspaceId, after, upTo, limit) =>
      loggedChangesBetween(db.sql, workspaceId, after, upTo, limit),
  });
  const headRead = onlyWriter
    ? createTrackedLogHead(readHead, (listener) =>
        onCommittedChanges(db.prisma, (written, committed) => {
          for (const append of committed.appended)
            changes.takeAppended(append.workspaceId, append.headBefore, append.events);
          listener(headsMovedBy(written, committed.appended));
        }),
      )
    : readHead;
  const contentHead = async (workspaceId: string) => {
    const head = await headRead(workspaceId);
    await changes.coverUpTo(workspaceId, head);
    return head;
  };
  const metrics = deps.metrics ?? createMetrics();
  metrics.watchWebhookQueue(() => webhookQueueState(db.sql));
  const variantRecords = new VariantRecords(db.sql);
  metrics.watchMediaVariants(() => variantRecords.totals());
  // Both doors' answer stores (CACHE=memory or redis), shared with the cached-read door.
  const cacheOn = config.cache.mode !== "off";
  const shared = config.cache.mode === "redis" ? deps.sharedAnswers : undefined;
  const graphqlAnswers = cacheOn
    ? createGraphQLAnswers({
        maxBytes: config.cache.maxBytes,
        maxAnswerBytes: config.graphql.maxResponseBytes,
        ttlMs: config.cache.ttlMs,
        onLookup: (hit) => metrics.observeCacheLookup("graphql", hit),
        shared,
        changes,
      })
    : undefined;
  if (graphqlAnswers) metrics.watchCacheBytes("graphql", () => graphqlAnswers.bytes());
  const services: AppServices = {
    config,
    logger,
    sql: db.sql,
    mediaStorage: deps.mediaStorage,
    changes: deps.changes,
    contentHead,
    graphqlAnswers,
    metrics,
    previewSecret: resolvePreviewSecret(config, logger),
    ...(db.replicas ? { replicas: db.replicas } : {}),
  };
  if (db.replicas) {
    const router = db.replicas;
    // Each write learns the primary's position past its commit, which its response carries back.
    recordCommitPositions(db.prisma, () => router.recordCommit());
    router.observe({
      read: (target) => metrics.countRead(target),
      fallback: (reason) => metrics.countFallback(reason),
    });
    metrics.watchReplicaLag(() => router.lags());
  }
  const yoga = createContentYoga(db.prisma, services);
  // The REST routes' queries: the same schema and context as Yoga's, compiled once (in-process-queries.ts).
  const queries = createInProcessQueries(
    yoga.getEnveloped({}).schema,
    services,
    requestContext(db.prisma, services),
  );
  const restCache = cacheOn
    ? createResponseCache({
        contentHead,
        maxBytes: config.cache.maxBytes,
        ttlMs: config.cache.ttlMs,
        onLookup: (hit) => metrics.observeCacheLookup("rest", hit),
        shared,
        changes,
      })
    : undefined;
  if (restCache) metrics.watchCacheBytes("rest", () => restCache.stats().bytes);
  return {
    callers,
    contentHead,
    metrics,
    graphqlAnswers,
    restCache,
    cacheControl: cacheControlPolicy(config.cache),
    yoga,
    queries,
    identify: requestBudget(config.rateLimit),
  };
}
