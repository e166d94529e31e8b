// A whole app over a test database, listening on an ephemeral loopback port for REST tests, plus an
// in-process GraphQL executor (no port) for GraphQL tests. With TEST_SERVER=process, the built server
// in a process of its own instead (server-process-app.ts).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Express } from "express";
import type { ExecutionResult } from "graphql";
import { parse } from "graphql";
import { buildApp } from "../../src/app/build-app.ts";
import { resolveApiKey } from "../../src/auth/resolve-api-key.ts";
import { createWorkspace } from "../../src/auth/workspaces.ts";
import { createChangeStream, openSharedAnswers, startBackgroundWork } from "../../src/bootstrap.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/database.ts";
import type { QueryObserver } from "../../src/db/sql-executor.ts";
import { resolvePreviewSecret } from "../../src/first-start.ts";
import type { ChangeStream } from "../../src/graphql/live/change-stream.ts";
import { createContentYoga } from "../../src/graphql/yoga.ts";
import { answerParserErrorsWithJson } from "../../src/http/client-errors.ts";
import { createRateLimiter } from "../../src/limits/create-rate-limiter.ts";
import type { RateLimiter } from "../../src/limits/rate-limiter.ts";
import { silentLogger } from "../../src/logger.ts";
import { openMediaStorage } from "../../src/media/create-storage.ts";
import type { MediaStorage } from "../../src/media/storage.ts";
import { createMetrics } from "../../src/metrics.ts";
import { type RequestOptions, requestJson, type TestResponse } from "./http-request.ts";
import { recordServerError } from "./server-errors.ts";
import { isProcessMode, startServerProcessApp } from "./server-process-app.ts";
import { openTestDatabase } from "./test-database.ts";

export interface TestWorkspace {
  id: string;
  slug: string;
  publicKey: string;
  privateKey: string;
}

export interface TestApp {
  config: Config;
  /** The Express app itself, for tests that look at which part of the pipeline answered. */
  express: Express;
  db: Database;
  url: string;
  mediaStorage: MediaStorage;
  /** A new workspace with its two keys. */
  workspace(name?: string): Promise<TestWorkspace>;
  /** fetch against the app: `request("GET", "/v1/posts", { key })`. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** The app's live change stream (subscriptions). */
  changes: ChangeStream;
  /** Runs a GraphQL operation in-process (no HTTP) with the caller a key resolves to. */
  graphql(key: string, query: string, variables?: Record<string, unknown>): Promise<ExecutionResult<any>>;
  close(): Promise<void>;
}

export interface StartTestAppOptions {
  env?: Record<string, string>;
  onQuery?: QueryObserver;
  rateLimiter?: RateLimiter;
  /** Also run the instance's background work (webhook dispatch, change log pruning), as the server does. */
  background?: boolean;
  /** Serve this database instead of the test's own (a test that needs both stores at once). */
  database?: () => Promise<Database>;
  /** Listen on this loopback port (a test that must know its own URL before start, as PUBLIC_URL). */
  port?: number;
  /**
   * Media URLs as a server without PUBLIC_URL gives them (http://localhost:<PORT>), not the test
   * default's fixed base: give `port` and env PORT the same value for them to reach this app.
   */
  ownMediaBase?: boolean;
}

/**
 * The app of a test file: in-process by default; with TEST_SERVER=process the built server started as
 * `npm start` starts it, on a store of its own (server-process-app.ts), for the files that need no more
 * than HTTP (scripts/test-server-process.mjs lists them).
 */
export async function startTestApp(options: StartTestAppOptions = {}): Promise<TestApp> {
  if (isProcessMode()) return startServerProcessApp(options);
  const dataDir = mkdtempSync(path.join(tmpdir(), "content-test-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    RATE_LIMIT_AUTHENTICATED: "1000000",
    RATE_LIMIT_UNAUTHENTICATED: "1000000",
    MEDIA_TRANSFORM_RATE_LIMIT: "1000000",
    ...options.env,
  });
  const metrics = createMetrics();
  const db = options.database
    ? await options.database()
    : await openTestDatabase({
        // A test's own DATABASE_STATEMENT_TIMEOUT_MS (the test database reads DATABASE_URL itself, so
        // `config.database` here is the embedded one).
        ...(options.env?.DATABASE_STATEMENT_TIMEOUT_MS
          ? { statementTimeoutMs: Number(options.env.DATABASE_STATEMENT_TIMEOUT_MS) }
          : {}),
        onQuery: (sql, source) => {
          metrics.countStatement();
          options.onQuery?.(sql, source);
        },
      });
  // In CI's PostgreSQL + Redis run the counters live in Redis too, under a prefix of this app's own.
  const rateLimiter =
    options.rateLimiter ??
    createRateLimiter({
      windowMs: config.rateLimit.windowMs,
      redisUrl: process.env.REDIS_URL,
      keyPrefix: `test:${randomBytes(6).toString("hex")}:`,
      log: silentLogger,
    });
  let server: Server | undefined;
  // Media URLs need an absolute base; tests read files back through the app itself.
  const mediaConfig = options.ownMediaBase
    ? config
    : { ...config, publicUrl: config.publicUrl ?? "http://media.test" };
  const mediaStorage = await openMediaStorage(mediaConfig, silentLogger);
  const changes = createChangeStream(db, silentLogger, config.subscriptions);
  const sharedAnswers = openSharedAnswers(config);
  const app = buildApp({
    config: mediaConfig,
    db,
    logger: silentLogger,
    rateLimiter,
    mediaStorage,
    changes,
    metrics,
    sharedAnswers,
  });
  server = await new Promise<Server>((resolve) => {
    const s = createServer(app.listener).listen(options.port ?? 0, "127.0.0.1", () => resolve(s));
  });
  answerParserErrorsWithJson(server);
  // Idle connections are closed by the client (fetch drops a pooled socket after 4 s), never by the
  // server first: with Node's 5 s, a request sent on a pooled socket just as the server closed it met
  // ECONNRESET (seen once in CI on a loaded machine, where the two timers drift together).
  server.keepAliveTimeout = 65_000;
  server.on("request", (req, res) => {
    res.once("finish", () => {
      if (res.statusCode >= 500)
        recordServerError({ status: res.statusCode, request: `${req.method} ${req.url?.slice(0, 200)}` });
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const background = options.background
    ? await startBackgroundWork(mediaConfig, db, silentLogger, mediaStorage)
    : undefined;
  const yoga = createContentYoga(db.prisma, {
    config: mediaConfig,
    logger: silentLogger,
    sql: db.sql,
    mediaStorage,
    // The same secret as the app's (DATA_DIR/preview-secret, made by buildApp): tokens work on both.
    previewSecret: resolvePreviewSecret(mediaConfig, silentLogger),
  });

  return {
    config: mediaConfig,
    express: app.express,
    db,
    url,
    mediaStorage,
    changes,
    async workspace(name = "Test workspace") {
      const created = await createWorkspace(db.prisma, name);
      return {
        id: created.workspace.id,
        slug: created.workspace.slug,
        publicKey: created.publicKey,
        privateKey: created.privateKey,
      };
    },
    request: (method, requestPath, opts) => requestJson(url, method, requestPath, opts),
    async graphql(key, query, variables = {}) {
      const caller = await resolveApiKey(db.prisma, key);
      const { contextFactory, execute, schema } = yoga.getEnveloped({ req: { caller } } as never);
      let result: ExecutionResult<any>;
      try {
        const contextValue = await contextFactory();
        result = (await execute({
          schema,
          document: parse(query),
          variableValues: variables,
          contextValue,
        })) as ExecutionResult<any>;
      } catch (error) {
        result = { errors: [error as never] };
      }
      if (result.errors?.some((error) => error.extensions?.code === "INTERNAL_SERVER_ERROR"))
        recordServerError({ status: 500, request: `in-process GraphQL ${query.slice(0, 200)}` });
      return result;
    },
    async close() {
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        // A connection a test left mid-response (a body it never read) no longer ends by the idle
        // timeout, which is long here (see keepAliveTimeout above): give requests in flight the 5 s
        // Node's default timeout gave them, then end what is left. Cleared once closed: a pending timer
        // would hold this app (and its database) for those 5 s in a worker that goes on to other files.
        const stragglers = setTimeout(() => server?.closeAllConnections(), 5_000);
        stragglers.unref();
        server.close(() => {
          clearTimeout(stragglers);
          resolve();
        });
      });
      await background?.stop(1_000);
      await changes.close();
      await sharedAnswers?.close();
      await rateLimiter.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
