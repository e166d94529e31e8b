// `npm start`: validate configuration, open the runtime, listen; on SIGTERM/SIGINT stop accepting,
// let in-flight requests and webhook attempts finish (up to SHUTDOWN_TIMEOUT_MS), then close the
// database cleanly.
//
// The HTTP side (GraphQL schema, REST routes, express: most of the code) is imported while the database
// opens rather than before: loading it and opening PGlite (or copying the data template into a new
// data folder) then overlap, which is a good part of a start (docs/performance.md, "Start-up").
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceApp } from "./app/build-app.ts";
import { createChangeStream, createSharedCallers, openRuntime, startBackgroundWork } from "./bootstrap.ts";
import { startControlServer } from "./cli/control-server.ts";
import { controlSocketPath } from "./cli/control-socket.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { EmbeddedDatabaseLockedError } from "./db/embedded-lock.ts";
import { ensureDefaultWorkspace, revealFirstKeys } from "./first-start.ts";
import { answerParserErrorsWithJson } from "./http/client-errors.ts";
import { createLogger } from "./logger.ts";
import { createMetrics } from "./metrics.ts";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const metrics = createMetrics({ processMetrics: true });
  const loadingApp = import("./app/build-app.ts");
  // Awaited below; a failed import must not go unhandled while the database opens.
  loadingApp.catch(() => {});
  const runtime = await openRuntime(config, logger, { onQuery: () => metrics.countStatement() });
  await ensureDefaultWorkspace(runtime.db.prisma, (keys) =>
    revealFirstKeys(keys, {
      terminal: process.stdout.isTTY ? process.stdout : null,
      dataDir: config.dataDir,
      port: config.port,
      logger,
    }),
  );

  // Change log pruning and webhook dispatch.
  const background = await startBackgroundWork(config, runtime.db, logger, runtime.mediaStorage);

  let shuttingDown = false;
  // The embedded database is this process's alone: the CLI runs its commands here, over a local socket.
  const control =
    runtime.db.kind === "embedded"
      ? await startControlServer(runtime.db, controlSocketPath(config.dataDir), logger)
      : null;
  const changes = createChangeStream(runtime.db, logger, config.subscriptions);
  const shared = await createSharedCallers(runtime.db, logger);
  const { buildApp } = await loadingApp;
  const app = buildApp({
    config,
    logger,
    ...runtime,
    changes,
    callers: shared.callers,
    metrics,
    isShuttingDown: () => shuttingDown,
  });
  /** What the process holds besides the HTTP server, released in this order on the way out. */
  const release = async (webhookGraceMs: number) => {
    // Webhook attempts in flight get the grace, then their deliveries are released.
    await background.stop(webhookGraceMs);
    await control?.close();
    await shared.close();
    await runtime.close();
  };
  let server: Server;
  try {
    server = await listen(app.listener, config.port, config.host);
  } catch (error) {
    // A port in use: the start fails (main's catch says why) instead of a process serving nothing.
    await changes.close();
    await release(0);
    throw error;
  }
  // The bound port, which PORT=0 leaves to the system.
  const { port } = server.address() as AddressInfo;
  logger.info("listening", { url: `http://${config.host}:${port}`, database: runtime.db.kind });
  answerParserErrorsWithJson(server);

  // Handlers can outlive their connection (a client that gave up): count requests, not sockets, so
  // the database is closed only when no handler can still use it.
  let inFlight = 0;
  server.on("request", (_req, res) => {
    inFlight++;
    res.once("close", () => inFlight--);
  });

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info("shutting down", { signal });
    const deadline = Date.now() + config.shutdownTimeoutMs;
    server.close();
    server.closeIdleConnections();
    // Subscriptions end cleanly (their SSE streams complete) instead of being cut at the deadline.
    await changes.close();
    while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    if (inFlight > 0) {
      logger.warn("in-flight requests did not finish in time; closing anyway", { inFlight });
      server.closeAllConnections();
    }
    await release(Math.max(0, deadline - Date.now()));
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** Listens on `port`; a failure to (a port in use) rejects instead of an unhandled 'error' event. */
function listen(listener: ServiceApp["listener"], port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(listener);
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof EmbeddedDatabaseLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else if ((error as { code?: unknown } | null)?.code === "EADDRINUSE") {
    process.stderr.write(`Cannot listen: ${(error as Error).message} (set PORT or HOST to a free address)\n`);
  } else if (isConnectionError(error)) {
    // The server is unreachable or refuses the credentials: a setting to fix, not a bug to debug.
    process.stderr.write(`Cannot connect to the database named by DATABASE_URL: ${error.message}\n`);
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});

/** node-postgres' errors for a server that cannot be reached or refuses the login (SQLSTATE 08, 28, 3D). */
function isConnectionError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|08...|28...|3D000)$/.test(code);
}
