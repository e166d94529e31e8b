// How the service's Prisma clients and pools are made on every store: Prisma's node-postgres adapter with
// each statement prepared once per connection, the transaction waits the service needs, and a pool that
// survives a connection failing while idle. The server (server-database.ts), its replicas (through
// replica-member.ts's ClientMaker) and the embedded store's connection (embedded-database.ts) use these.
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type pg from "pg";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { QueryObserver } from "./sql-executor.ts";
import { statementName } from "./statement-names.ts";

/** Prisma's node-postgres adapter on `pool`, each statement prepared once per connection. */
export function pgAdapter(pool: pg.Pool, schema?: string): PrismaPg {
  return new PrismaPg(pool, {
    ...(schema ? { schema } : {}),
    // Each connection prepares a statement once (see statement-names.ts). The adapter hands the name
    // to `pg`, for which no name means an unnamed statement; its type only says string.
    statementNameGenerator: (query) => statementName(query.sql) as string,
  });
}

export function createPrisma(adapter: SqlDriverAdapterFactory, onQuery?: QueryObserver): PrismaClient {
  // Interactive transactions wait for a free connection; under load the 2 s default is too short.
  const transactionOptions = { maxWait: 10_000, timeout: 15_000 };
  if (!onQuery) return new PrismaClient({ adapter, transactionOptions });
  const prisma = new PrismaClient({ adapter, transactionOptions, log: [{ emit: "event", level: "query" }] });
  prisma.$on("query", (event: { query: string }) => onQuery(event.query, "prisma"));
  return prisma as unknown as PrismaClient;
}

/**
 * A pooled connection that fails while idle (the server restarted, the embedded thread stopped) is
 * dropped by the pool, which emits 'error': without a listener that would end the process. The next
 * statement opens a new connection; the request that meets the outage is answered 503.
 */
export function watchIdleConnections(pool: pg.Pool, logger: Logger | undefined): void {
  pool.on("error", (error) => {
    logger?.warn("an idle database connection failed; the pool drops it", { error: error.message });
  });
}
