// buildApp wires the request pipeline without listening, so tests run it in-process:
// cached reads (hits answered before all of it) → query parsed once → metrics → request id + log → CORS
// → /v1 REST (caller, rate limit, route) → status, /metrics, explorer pages, media files → admin →
// /graphql (caller, rate limit) → 404 → JSON errors.
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type RequestHandler } from "express";
import { type CallerResolver, createCallerResolver } from "./auth/caller-cache.ts";
import { workspaceExists } from "./auth/workspaces.ts";
import { createGraphQLAnswers } from "./cache/graphql-answers.ts";
import { cacheControlPolicy, createResponseCache } from "./cache/rest-answers.ts";
import type { SharedAnswers } from "./cache/shared-answers.ts";
import type { Config } from "./config.ts";
import { createLogHeadReader } from "./content/log-head-reader.ts";
import { createTrackedLogHead } from "./content/tracked-log-head.ts";
import { webhookQueueState } from "./content/webhook-deliveries.ts";
import { onCommittedChanges } from "./content/writer.ts";
import type { Database } from "./db/database.ts";
import { echoInput } from "./domain/echo-input.ts";
import { resolvePreviewSecret } from "./first-start.ts";
import { rateLimitedError } from "./graphql/errors.ts";
import { createInProcessQueries } from "./graphql/in-process-queries.ts";
import type { ChangeStream } from "./graphql/live/change-stream.ts";
import { createContentYoga, requestContext } from "./graphql/yoga.ts";
import { adminRoutes } from "./http/admin-routes.ts";
import { cachedReadDoor } from "./http/cached-read-door.ts";
import { openCors } from "./http/cors.ts";
import { explorerPages } from "./http/explorer-pages.ts";
import { graphqlBody, graphqlBodyErrors } from "./http/graphql-body.ts";
import { graphqlGate } from "./http/graphql-gate.ts";
import { jsonErrorHandler, sendError } from "./http/json-errors.ts";
import { metricsRoute, observeRequests } from "./http/metrics-route.ts";
import { parseQueryOnce } from "./http/query-once.ts";
import { parseQueryString } from "./http/query-string.ts";
import { refuseNullBytesInUrl } from "./http/refuse-null-bytes.ts";
import { resolveRequestCaller } from "./http/request-caller.ts";
import { requestLog } from "./http/request-log.ts";
import { statusRoutes } from "./http/status-routes.ts";
import { clientAddressKey, rateLimit } from "./limits/rate-limit-middleware.ts";
import type { RateLimiter } from "./limits/rate-limiter.ts";
import type { Logger } from "./logger.ts";
import { serveLocalMedia } from "./media/serve-local-media.ts";
import { isSelfServed, type MediaStorage } from "./media/storage.ts";
import { createMetrics, type ServiceMetrics } from "./metrics.ts";
import { createRestRouter } from "./rest/router.ts";

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

export function buildApp(deps: AppDeps): Express {
  const { config, db, logger } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", parseTrustProxy(config.trustProxy));
  // qs as Express's "extended" parser runs it, flat pairs read without it (query-string.ts).
  app.set("query parser", parseQueryString);

  const callers = deps.callers ?? createCallerResolver(db.prisma);
  // A key revoked or issued through this instance is seen at once here (other instances within the
  // cache's lifetime).
  onCommittedChanges(db.prisma, (changes) => {
    if (changes.some((change) => change.resource === "api_key")) callers.clear();
  });
  // One statement answers every request that arrived before it started (log-head-reader.ts). On a
  // database only this process writes (embedded), the head is kept until a write moves it.
  const readHead = createLogHeadReader(db.sql);
  const contentHead =
    db.kind === "postgres"
      ? readHead
      : createTrackedLogHead(readHead, (listener) =>
          onCommittedChanges(db.prisma, (changes) => listener(changes.map((change) => change.workspaceId))),
        );
  const metrics = deps.metrics ?? createMetrics();
  metrics.watchWebhookQueue(() => webhookQueueState(db.sql));
  // Both doors' answer stores (CACHE=memory or redis), shared with the cached-read door.
  const cacheOn = config.cache.mode !== "off";
  const shared = config.cache.mode === "redis" ? deps.sharedAnswers : undefined;
  const graphqlAnswers = cacheOn
    ? createGraphQLAnswers({
        maxBytes: config.cache.maxBytes,
        ttlMs: config.cache.ttlMs,
        onLookup: (hit) => metrics.observeCacheLookup("graphql", hit),
        shared,
      })
    : undefined;
  if (graphqlAnswers) metrics.watchCacheBytes("graphql", () => graphqlAnswers.bytes());
  const services = {
    config,
    logger,
    sql: db.sql,
    mediaStorage: deps.mediaStorage,
    changes: deps.changes,
    contentHead,
    graphqlAnswers,
    metrics,
    previewSecret: resolvePreviewSecret(config, logger),
  };
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
      })
    : undefined;
  if (restCache) metrics.watchCacheBytes("rest", () => restCache.stats().bytes);
  const cacheControl = cacheControlPolicy(config.cache);
  const identify = (req: express.Request) =>
    req.caller?.keyId
      ? { key: `key:${req.caller.keyId}`, limit: config.rateLimit.authenticated }
      : { key: clientAddressKey(req), limit: config.rateLimit.unauthenticated };

  const observe = [observeRequests(metrics), requestLog(logger)];
  const limited = (
    limitedBody?: (message: string, retryAfterSeconds: number) => unknown,
  ): RequestHandler[] => [
    resolveRequestCaller(callers),
    rateLimit({ limiter: deps.rateLimiter, identify, limitedBody }),
  ];
  app.use(parseQueryOnce());
  app.use(...observe);
  app.use(openCors());
  // The REST door first: its paths overlap no other route, and mounted here its requests skip the
  // stacks of the routers below (status, metrics, explorer pages, media, admin, GraphQL).
  app.use(
    "/v1",
    refuseNullBytesInUrl(),
    createRestRouter({
      yoga,
      queries,
      workspaceExists: (id) => workspaceExists(db.prisma, id),
      config,
      logger,
      limited: limited(),
      cache: restCache,
      cacheControl,
    }),
  );
  app.use(statusRoutes(db.sql, deps.isShuttingDown ?? (() => false)));
  app.use(metricsRoute(metrics, config.metricsToken));
  app.use(explorerPages());
  if (isSelfServed(deps.mediaStorage)) app.use(serveLocalMedia(deps.mediaStorage));
  app.use("/admin", refuseNullBytesInUrl());
  if (config.adminToken)
    app.use(
      "/admin",
      adminRoutes({
        prisma: db.prisma,
        token: config.adminToken,
        callers,
        failedAuth: { limiter: deps.rateLimiter, limit: config.rateLimit.unauthenticated },
      }),
    );

  // GraphQL clients get the limit as a GraphQL error (RATE_LIMITED); REST clients the contract's body.
  const graphqlLimitedBody = (message: string, seconds: number) => ({
    errors: [rateLimitedError(message, seconds).toJSON()],
  });
  app.use(
    "/graphql",
    ...limited(graphqlLimitedBody),
    graphqlGate(),
    ...graphqlBody({
      limitBytes: config.bodyLimitBytes,
      mediaMaxBytes: config.media.maxBytes,
      multipartMaxBytes: config.media.maxRequestBytes,
    }),
    yoga as unknown as RequestHandler,
    graphqlBodyErrors(),
  );

  app.use((req, res) => {
    sendError(res, 404, "Not found", `No route for ${req.method} ${echoInput(req.path)}`);
  });
  app.use(jsonErrorHandler(logger));
  if (restCache && graphqlAnswers) {
    // Cache hits are answered before Express sees them (cached-read-door.ts). Express's app is a function
    // that hands every request to `app.handle`, so wrapping that one method puts the door in front of
    // every way the app is served (app.listen, http.createServer(app), tests).
    const served = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse) => void };
    const pipeline = served.handle.bind(app);
    served.handle = cachedReadDoor(
      {
        head: contentHead,
        rest: restCache,
        graphql: graphqlAnswers,
        callers,
        limiter: deps.rateLimiter,
        identify,
        observe,
        bodyLimitBytes: config.bodyLimitBytes,
        cacheControl,
      },
      pipeline,
    );
  }
  return app;
}

/** TRUST_PROXY: unset → trust nobody (use the socket address); a number → hop count; else Express' syntax. */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (!value) return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
