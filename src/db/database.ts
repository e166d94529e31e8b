// Opens the one database the service uses: embedded PGlite (default) or a PostgreSQL server.
// Both go through a Prisma driver adapter, so everything above this file runs one code path.
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { Config } from "../config.ts";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { acquireEmbeddedLock } from "./embedded-lock.ts";
import { type EmbeddedWorker, startEmbeddedWorker } from "./embedded-thread-supervisor.ts";
import { applyPendingMigrations } from "./migrations.ts";
import { startFromTemplate } from "./new-data-folder.ts";
import { type Listening, listenOnPostgres } from "./notifications.ts";
import { createReplicaRouter, type ReplicaRouter } from "./replica-router.ts";
import {
  observedExecutor,
  pgExecutor,
  pgliteExecutor,
  type QueryObserver,
  type SqlExecutor,
} from "./sql-executor.ts";
import { statementName } from "./statement-names.ts";
import { yieldingTransactions } from "./yielding-transactions.ts";

export type DatabaseConfig =
  | Exclude<Config["database"], { kind: "embedded" }>
  | { kind: "embedded"; dir: string /** EMBEDDED_WATCHDOG_MS [60 s]. */; watchdogMs?: number }
  | {
      kind: "memory";
      /**
       * A dump of a migrated database (PGlite's `dumpDataDir`) to start from: loading one takes a
       * fraction of a fresh cluster's initialisation (tests open hundreds: test/helpers/pglite-template.ts).
       */
      initialState?: Blob;
    };

/** What the embedded thread's supervisor says when it stops and when it is back (embedded-thread-supervisor.ts). */
const DEFAULT_EMBEDDED_WATCHDOG_MS = 60_000;

export interface Database {
  kind: DatabaseConfig["kind"];
  prisma: PrismaClient;
  /** Raw SQL on the same database (readiness, full-text search). */
  sql: SqlExecutor;
  /** Applies pending migrations; returns the names applied. */
  migrate(): Promise<string[]>;
  /**
   * Calls `onNotify` on every NOTIFY to `channelPrefix` + this database's schema, sent by any process
   * (notifications.ts). The embedded database has one process: nothing to hear, a no-op.
   */
  listen(channelPrefix: string, onNotify: () => void, onError: (error: unknown) => void): Promise<Listening>;
  /**
   * Runs `work` on one connection of its own, without the request deadline (statement_timeout): for
   * maintenance whose statements must share a session (a session advisory lock) and may rightly take
   * longer than a request (ANALYZE of a large table). The embedded database has one connection.
   */
  session<T>(work: (sql: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * False while the database is known to be down without asking it: the embedded database's thread
   * stopped or stopped answering and is being started again (/ready answers 503 meanwhile).
   */
  isAvailable(): boolean;
  /** Where reads may go when DATABASE_REPLICA_URLS names replicas (replica-router.ts); absent: the primary. */
  replicas?: ReplicaRouter;
  /** The embedded database's thread, to end it as a crash would (tests of its supervision). */
  embeddedThread?: Pick<EmbeddedWorker, "kill" | "whenUp">;
  close(): Promise<void>;
}

const NOT_LISTENING: Listening = { close: async () => {} };

export interface OpenDatabaseOptions {
  /** Apply pending migrations before returning (always done for the embedded modes). */
  migrate?: boolean;
  logger?: Logger;
  /** Where a new embedded data folder's template lives [dist/pgdata-template] (new-data-folder.ts). */
  dataTemplateRoot?: string;
  /**
   * Called with every SQL statement Prisma sends and every raw one through `sql` (after start-up);
   * used by statement-count tests and the benchmark.
   */
  onQuery?: QueryObserver;
  /**
   * PostgreSQL's shared_buffers on the embedded store (PGlite), e.g. "16MB"; its default is the data
   * folder's (128MB). PGlite allocates and touches them at start, inside its WebAssembly memory, so they
   * count in full in the process's resident memory whatever the database's size: a command line run
   * that wants a small footprint asks for less (cli/run-locally.ts). Ignored on a PostgreSQL server.
   */
  embeddedSharedBuffers?: string;
  /** Read replicas of a PostgreSQL server (Config["replicas"]); ignored on the embedded store. */
  replicas?: { urls: string[]; maxLagMs: number; pollMs?: number };
}

function pgliteOptions({ embeddedSharedBuffers }: OpenDatabaseOptions): PGliteOptions {
  if (!embeddedSharedBuffers) return {};
  // Start parameters replace PGlite's own, so its defaults are kept and the setting added after them.
  return { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${embeddedSharedBuffers}`] };
}

export async function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const log = options.logger ? (msg: string) => options.logger?.info(msg) : undefined;
  if (config.kind === "postgres") {
    const pool = serverPool(config, options.logger);
    const sql = pgExecutor(pool);
    // The advisory lock and each migration's transaction must stay on one connection. A migration may
    // rightly take longer than a request (an index on a large table): it lifts the deadline for itself.
    const session = async <T>(work: (sql: SqlExecutor) => Promise<T>): Promise<T> => {
      const connection = await pool.connect();
      try {
        await connection.query("SET statement_timeout = 0");
        return await work(pgExecutor(connection));
      } finally {
        await connection.query("RESET statement_timeout").catch(() => {});
        connection.release();
      }
    };
    const migrate = () => session((connection) => applyPendingMigrations(connection, { log }));
    try {
      if (config.schema) await sql.exec(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`);
      if (options.migrate) await migrate();
    } catch (error) {
      await pool.end();
      throw error;
    }
    const adapter = pgAdapter(pool, config.schema);
    const prisma = createPrisma(adapter, options.onQuery);
    const replicas = options.replicas?.urls.length
      ? createReplicaRouter({
          ...options.replicas,
          connection: {
            schema: config.schema,
            poolSize: config.poolSize,
            statementTimeoutMs: config.statementTimeoutMs,
          },
          primary: { prisma, sql: observedExecutor(sql, options.onQuery), adapter },
          make: {
            // A replica that stops answering costs a read at most this long before the primary takes it.
            pool: (connection) => serverPool({ ...connection, connectTimeoutMs: 2_000 }, options.logger),
            adapter: pgAdapter,
            prisma: createPrisma,
          },
          onQuery: options.onQuery,
          onReplicaFailure: (name, error) =>
            options.logger?.warn("a read failed on a replica; it ran on the primary", {
              replica: name,
              error: error instanceof Error ? error.message : String(error),
            }),
        })
      : undefined;
    return {
      kind: "postgres",
      prisma,
      ...(replicas ? { replicas } : {}),
      sql: observedExecutor(sql, options.onQuery),
      migrate,
      session: (work) => session((connection) => work(observedExecutor(connection, options.onQuery))),
      listen: (channelPrefix, onNotify, onError) =>
        listenOnPostgres({ url: config.url, schema: config.schema }, channelPrefix, onNotify, onError),
      isAvailable: () => true,
      async close() {
        await replicas?.close();
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }

  if (config.kind === "embedded")
    return openEmbedded(config.dir, config.watchdogMs ?? DEFAULT_EMBEDDED_WATCHDOG_MS, options);

  // In memory (tests, a dry run): PGlite on this thread, through its own driver adapter.
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
async function openEmbedded(
  dir: string,
  watchdogMs: number,
  options: OpenDatabaseOptions,
): Promise<Database> {
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
    // One connection: PGlite has one session, which a transaction must not share. Kept open while idle
    // (no reconnect on the next request after a quiet spell).
    pool = new pg.Pool({
      host: worker.socketDirectory,
      port: worker.port,
      user: "postgres",
      database: "postgres",
      max: 1,
      idleTimeoutMillis: 0,
    });
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
 * A pooled connection that fails while idle (the server restarted, the embedded thread stopped) is
 * dropped by the pool, which emits 'error': without a listener that would end the process. The next
 * statement opens a new connection; the request that meets the outage is answered 503.
 */
function watchIdleConnections(pool: pg.Pool, logger: Logger | undefined): void {
  pool.on("error", (error) => {
    logger?.warn("an idle database connection failed; the pool drops it", { error: error.message });
  });
}

/** A PostgreSQL server's pool (the primary's, or a replica's: replica-member.ts). */
function serverPool(
  config: {
    url: string;
    schema?: string;
    poolSize: number;
    statementTimeoutMs: number;
    connectTimeoutMs?: number;
  },
  logger: Logger | undefined,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize,
    ...(config.connectTimeoutMs ? { connectionTimeoutMillis: config.connectTimeoutMs, keepAlive: true } : {}),
    // Every statement has a deadline: no request (a hostile search, a plan gone wrong on a table
    // without statistics) holds a pooled connection longer; past it PostgreSQL cancels the statement
    // (SQLSTATE 57014), answered 503 (statement-timeout.ts). Sent at connect, so it is each
    // connection's default, which RESET returns to.
    ...(config.statementTimeoutMs > 0 ? { statement_timeout: config.statementTimeoutMs } : {}),
    ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
  });
  watchIdleConnections(pool, logger);
  return pool;
}

/** Prisma's node-postgres adapter on `pool`, each statement prepared once per connection. */
function pgAdapter(pool: pg.Pool, schema?: string): PrismaPg {
  return new PrismaPg(pool, {
    ...(schema ? { schema } : {}),
    // Each connection prepares a statement once (see statement-names.ts). The adapter hands the name
    // to `pg`, for which no name means an unnamed statement; its type only says string.
    statementNameGenerator: (query) => statementName(query.sql) as string,
  });
}

function createPrisma(adapter: SqlDriverAdapterFactory, onQuery?: QueryObserver): PrismaClient {
  // Interactive transactions wait for a free connection; under load the 2 s default is too short.
  const transactionOptions = { maxWait: 10_000, timeout: 15_000 };
  if (!onQuery) return new PrismaClient({ adapter, transactionOptions });
  const prisma = new PrismaClient({ adapter, transactionOptions, log: [{ emit: "event", level: "query" }] });
  prisma.$on("query", (event: { query: string }) => onQuery(event.query, "prisma"));
  return prisma as unknown as PrismaClient;
}
