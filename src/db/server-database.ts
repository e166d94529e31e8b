// A PostgreSQL server as the service's database: a pool whose connections carry the request deadline and
// the schema, Prisma on it, a connection of its own for maintenance (migrations, the analyser), LISTEN
// for other processes' commits, and the read replicas' router when DATABASE_REPLICA_URLS names some.
import pg from "pg";
import type { Logger } from "../logger.ts";
import type { Database, DatabaseConfig, OpenDatabaseOptions } from "./database-types.ts";
import { applyPendingMigrations } from "./migrations.ts";
import { listenOnPostgres } from "./notifications.ts";
import { createPrisma, pgAdapter, watchIdleConnections } from "./prisma-client.ts";
import { createReplicaRouter } from "./replica-router.ts";
import { observedExecutor, pgExecutor, type SqlExecutor } from "./sql-executor.ts";

export async function openServerDatabase(
  config: Extract<DatabaseConfig, { kind: "postgres" }>,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const log = options.logger ? (msg: string) => options.logger?.info(msg) : undefined;
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
