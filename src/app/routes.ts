// The Express pipeline of one instance, mounted over its wired services (services.ts): query parsed
// once → metrics → request id + log → CORS → /v1 REST (caller, rate limit, route) → status, /metrics,
// explorer pages, media files → admin → /graphql (caller, rate limit) → 404 → JSON errors.
import express, { type Express, type RequestHandler } from "express";
import { findWorkspace, workspaceExists } from "../auth/workspaces.ts";
import { echoInput } from "../domain/echo-input.ts";
import { rateLimitedError } from "../graphql/errors.ts";
import { adminRoutes } from "../http/admin-routes.ts";
import { openCors } from "../http/cors.ts";
import { keyFromEventSourceQuery } from "../http/event-source-key.ts";
import { explorerPages } from "../http/explorer-pages.ts";
import { graphqlBody, graphqlBodyErrors } from "../http/graphql-body.ts";
import { graphqlGate } from "../http/graphql-gate.ts";
import { jsonErrorHandler, sendError } from "../http/json-errors.ts";
import { metricsRoute, observeRequests } from "../http/metrics-route.ts";
import { parseQueryOnce } from "../http/query-once.ts";
import { parseQueryString } from "../http/query-string.ts";
import { refuseNullBytesInUrl } from "../http/refuse-null-bytes.ts";
import { resolveRequestCaller } from "../http/request-caller.ts";
import { requestLog } from "../http/request-log.ts";
import { statusRoutes } from "../http/status-routes.ts";
import { writePositionHeader } from "../http/write-position.ts";
import { rateLimit } from "../limits/rate-limit-middleware.ts";
import { MediaVariants } from "../media/media-variants.ts";
import { serveLocalMedia } from "../media/serve-local-media.ts";
import { serveMediaTransforms } from "../media/serve-media-transforms.ts";
import { isSelfServed } from "../media/storage.ts";
import { VariantRecords } from "../media/variant-records.ts";
import { createRestRouter } from "../rest/router.ts";
import { exportToStream, importInto } from "../transfer/transfer-commands.ts";
import type { AppDeps, AppWiring } from "./services.ts";

/** `observe`: the request observers (requestObservers), shared with the cached-read door. */
export function mountRoutes(deps: AppDeps, wiring: AppWiring, observe: RequestHandler[]): Express {
  const { config, db, logger } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy);
  // qs as Express's "extended" parser runs it, flat pairs read without it (query-string.ts).
  app.set("query parser", parseQueryString);

  const limited = (
    limitedBody?: (message: string, retryAfterSeconds: number) => unknown,
  ): RequestHandler[] => [
    resolveRequestCaller(wiring.callers),
    rateLimit({ limiter: deps.rateLimiter, identify: wiring.identify, limitedBody }),
  ];
  app.use(parseQueryOnce());
  app.use(...observe);
  app.use(openCors());
  if (db.replicas) app.use(writePositionHeader(db.replicas));
  // The REST door first: its paths overlap no other route, and mounted here its requests skip the
  // stacks of the routers below (status, metrics, explorer pages, media, admin, GraphQL).
  app.use(
    "/v1",
    refuseNullBytesInUrl(),
    createRestRouter({
      yoga: wiring.yoga,
      queries: wiring.queries,
      workspaceExists: (id) => workspaceExists(db.prisma, id),
      config,
      logger,
      limited: limited(),
      cache: wiring.restCache,
      cacheControl: wiring.cacheControl,
      transfer: {
        workspace: (id) => findWorkspace(db.prisma, id),
        exportTo: (workspace, out) =>
          exportToStream({ db, config, storage: deps.mediaStorage }, workspace, out),
        importFrom: (workspace, file, { from, dryRun, webhooks, signal }) =>
          importInto(
            { db, config, storage: deps.mediaStorage, signal },
            workspace,
            { location: file, ...(from ? { from } : {}) },
            { dryRun, webhooks },
          ),
        uploadMaxBytes: config.imports.uploadMaxBytes,
      },
    }),
  );
  app.use(statusRoutes(db, deps.isShuttingDown ?? (() => false)));
  app.use(metricsRoute(wiring.metrics, config.metricsToken));
  app.use(explorerPages());
  // Transforms first: a media URL with transform parameters is a variant, whatever the storage backend.
  const variants = new MediaVariants(
    deps.mediaStorage,
    new VariantRecords(db.sql),
    config.media.transforms,
    logger,
  );
  wiring.metrics.watchTransforms(() => variants.load);
  app.use(
    serveMediaTransforms(variants, config.media.transforms, {
      limiter: deps.rateLimiter,
      limit: config.media.transforms.rateLimit,
    }),
  );
  if (isSelfServed(deps.mediaStorage)) app.use(serveLocalMedia(deps.mediaStorage));
  app.use("/admin", refuseNullBytesInUrl());
  if (config.adminToken)
    app.use(
      "/admin",
      adminRoutes({
        prisma: db.prisma,
        token: config.adminToken,
        callers: wiring.callers,
        failedAuth: { limiter: deps.rateLimiter, limit: config.rateLimit.unauthenticated },
        exportWorkspace: (workspace, out) =>
          exportToStream({ db, config, storage: deps.mediaStorage }, workspace, out),
      }),
    );

  // GraphQL clients get the limit as a GraphQL error (RATE_LIMITED); REST clients the contract's body.
  const graphqlLimitedBody = (message: string, seconds: number) => ({
    errors: [rateLimitedError(message, seconds).toJSON()],
  });
  app.use(
    "/graphql",
    keyFromEventSourceQuery(),
    ...limited(graphqlLimitedBody),
    ...graphqlBody({
      limitBytes: config.bodyLimitBytes,
      mediaMaxBytes: config.media.maxBytes,
      multipartMaxBytes: config.media.maxRequestBytes,
    }),
    graphqlGate({ introspection: config.graphql.introspection }),
    wiring.yoga as unknown as RequestHandler,
    graphqlBodyErrors(),
  );

  app.use((req, res) => {
    sendError(res, 404, "Not found", `No route for ${req.method} ${echoInput(req.path)}`);
  });
  app.use(jsonErrorHandler(logger));
  return app;
}

/** Metrics and the request log: the pipeline's and the cached-read door's, so hits are measured too. */
export function requestObservers(deps: AppDeps, wiring: AppWiring): RequestHandler[] {
  return [observeRequests(wiring.metrics), requestLog(deps.logger)];
}
