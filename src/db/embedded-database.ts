// The embedded stores, databases only this process uses: PGlite in a data folder on a thread of its own,
// reached over one node-postgres connection (the default store), or PGlite in memory on this thread
// (tests, a dry run). Both migrate on open: nobody else could have done it.
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Database, DatabaseConfig, OpenDatabaseOptions } from "./database-types.ts";
import { acquireEmbeddedLock } from "./embedded-lock.ts";
import { type EmbeddedWorker, startEmbeddedWorker } from "./embedded-thread-supervisor.ts";
import { applyPendingMigrations } from "./migrations.ts";
import { startFromTemplate } from "./new-data-folder.ts";
import type { Listening } from "./notifications.ts";
import { createPrisma, pgAdapter, watchIdleConnections } from "./prisma-client.ts";
import {
  observedExecutor,
  pgExecutor,
  pgliteExecutor,
  type QueryObserver,
  type SqlExecutor,
} from "./sql-executor.ts";
import { yieldingTransactions } from "./yielding-transactions.ts";

/** What the embedded thread's supervisor says when it stops and when it is back (embedded-thread-supervisor.ts). */
const DEFAULT_EMBEDDED_WATCHDOG_MS = 60_000;

const NOT_LISTENING: Listening = { close: async () => {} };

function pgliteOptions({ embeddedSharedBuffers }: OpenDatabaseOptions): PGliteOptions {
  if (!embeddedSharedBuffers) return {};
  // Start parameters replace PGlite's own, so its defaults are kept and the setting added after them.
  return { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${embeddedSharedBuffers}`] };
}

/** PGlite in memory, on this thread, through its own driver adapter. */
export async function openMemoryDatabase(
  config: Extract<DatabaseConfig, { kind: "memory" }>,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const log = options.logger ? (msg: string) => options.logger?.info(msg) : undefined;
  const client = new PGlite({
    ...pgliteOptions(options),
    ...(config.initialState ? { loadDataDir: config.initialState } : {}),
  });
  const sql = pgliteExecutor(client);
  const migrate = () => applyPendingMigrations(sql, { log });
  try {
    await client.waitReady;
    await migrate();
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  // A write's statements let requests in between them (yielding-transactions.ts).
  const prisma = createPrisma(yieldingTransactions(new PrismaPGlite(client)), options.onQuery);
  return ownDatabase(config.kind, prisma, sql, migrate, options.onQuery, async () => {
    await prisma.$disconnect();
    await client.close();
  });
}

/**
 * The embedded store: the data folder (started from the template when new), PGlite on a thread of its
 * own (embedded-thread-supervisor.ts), reached through node-postgres over one connection, as a server is.
 */
export async function openEmbeddedDatabase(
  config: Extract<DatabaseConfig, { kind: "embedded" }>,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const { dir } = config;
  const watchdogMs = config.watchdogMs ?? DEFAULT_EMBEDDED_WATCHDOG_MS;
  const log = options.logger ? (msg: string) => options.logger?.info(msg) : undefined;
  const lock = acquireEmbeddedLock(dir);
  let worker: EmbeddedWorker | undefined;
  let pool: pg.Pool | undefined;
  try {
    await startFromTemplate(dir, {
      templateRoot: options.dataTemplateRoot,
      log,
      warn: (msg, error) =>
        options.logger?.warn(msg, { error: error instanceof Error ? error.message : String(error) }),
    });
    const logger = options.logger;
    worker = await startEmbeddedWorker(dir, pgliteOptions(options).startParams, {
      watchdogMs,
      onOutage: (message, fields) => logger?.error(message, fields),
      onRecovery: (message, fields) => logger?.info(message, fields),
      onRestartFailed: (message, fields) => logger?.warn(message, fields),
    });
    pool = embeddedPool(worker);
    watchIdleConnections(pool, options.logger);
    const sql = pgExecutor(pool);
    const migrate = () => applyPendingMigrations(sql, { log });
    // The embedded database always migrates on open: nobody else could have done it.
    await migrate();
    const prisma = createPrisma(pgAdapter(pool), options.onQuery);
    const opened = { worker, pool };
    return {
      ...ownDatabase("embedded", prisma, sql, migrate, options.onQuery, async () => {
        await prisma.$disconnect();
        await opened.pool.end();
        await opened.worker.close();
        lock.release();
      }),
      isAvailable: () => opened.worker.isUp(),
      embeddedThread: worker,
    };
  } catch (error) {
    await pool?.end().catch(() => {});
    await worker?.close().catch(() => {});
    lock.release();
    throw error;
  }
}

/**
 * A database only this process uses (embedded, in memory): its one session serves maintenance too, and
 * no other process sends notifications to hear.
 */
function ownDatabase(
  kind: Database["kind"],
  prisma: PrismaClient,
  sql: SqlExecutor,
  migrate: () => Promise<string[]>,
  onQuery: QueryObserver | undefined,
  close: () => Promise<void>,
): Database {
  const observed = observedExecutor(sql, onQuery);
  return {
    kind,
    prisma,
    sql: observed,
    migrate,
    session: (work) => work(observed),
    listen: async () => NOT_LISTENING,
    isAvailable: () => true,
    close,
  };
}

/**
 * The client pool of the embedded database's wire server: one connection, since PGlite has one session,
 * which a transaction must not share; kept open while idle (no reconnect on the next request after a
 * quiet spell).
 */
export function embeddedPool(worker: Pick<EmbeddedWorker, "socketDirectory" | "port">): pg.Pool {
  return new pg.Pool({
    host: worker.socketDirectory,
    port: worker.port,
    user: "postgres",
    database: "postgres",
    max: 1,
    idleTimeoutMillis: 0,
  });
}
