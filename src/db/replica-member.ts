// One read replica: its own small pool and Prisma client (the primary's driver adapter setup and
// statement names, so a statement is prepared once per connection there too), with the primary behind
// every statement (replica-fallback.ts), and what the router knows of it: the position it has replayed,
// when that was seen, and whether it answered at all.

import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type pg from "pg";
import type { PrismaClient } from "../generated/prisma/client.ts";
import {
  fallbackAdapter,
  fallbackExecutor,
  type ReplicaFailure,
  replicaAtFault,
} from "./replica-fallback.ts";
import { observedExecutor, pgExecutor, type QueryObserver, type SqlExecutor } from "./sql-executor.ts";
import { parseLsn, REPLAY_POSITION_SQL } from "./wal-position.ts";

export interface ReplicaConnection {
  url: string;
  schema?: string;
  poolSize: number;
  statementTimeoutMs: number;
}

/** How the primary's clients are made (server-database.ts), so a replica's are made the same way. */
export interface ClientMaker {
  pool(connection: ReplicaConnection): pg.Pool;
  adapter(pool: pg.Pool, schema?: string): SqlDriverAdapterFactory;
  prisma(adapter: SqlDriverAdapterFactory, onQuery?: QueryObserver): PrismaClient;
}

export interface ReplicaMember {
  /** host:port/database, without credentials: the name metrics and logs show. */
  readonly name: string;
  readonly prisma: PrismaClient;
  readonly sql: SqlExecutor;
  /** The position it had replayed at the last check; null: unknown, or it did not answer. */
  replayed: bigint | null;
  /** A statement failed on it since the last check: no reads until a check answers. */
  failed: boolean;
  /** Asks it where its replay is; a caller during a check shares it (an early answer only sends reads to the primary). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A check that has not answered by then counts as no answer: a replica whose host stopped answering
 * (packets dropped, not refused) must not hold the reads that asked for a check.
 */
const CHECK_DEADLINE_MS = 1_000;

function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export function replicaName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "replica";
  }
}

export function openReplicaMember(
  connection: ReplicaConnection,
  primary: { adapter: SqlDriverAdapterFactory; sql: SqlExecutor },
  make: ClientMaker,
  options: { onQuery?: QueryObserver; onFailure: (member: ReplicaMember, error: unknown) => void },
): ReplicaMember {
  const pool = make.pool(connection);
  const own = pgExecutor(pool);
  let checking: Promise<void> | null = null;
  const failed: ReplicaFailure = (error) => {
    if (replicaAtFault(error)) member.failed = true;
    options.onFailure(member, error);
  };
  const member: ReplicaMember = {
    name: replicaName(connection.url),
    prisma: make.prisma(
      fallbackAdapter(make.adapter(pool, connection.schema), primary.adapter, failed),
      options.onQuery,
    ),
    sql: observedExecutor(fallbackExecutor(own, primary.sql, failed), options.onQuery),
    replayed: null,
    failed: false,
    check() {
      checking ??= withinDeadline(own.query<{ lsn: string | null }>(REPLAY_POSITION_SQL), CHECK_DEADLINE_MS)
        .then(
          (rows) => {
            // Null: not a replica (or not replaying): nothing says what it shows, so it gets no reads.
            member.replayed = parseLsn(rows[0]?.lsn);
            member.failed = false;
          },
          () => {
            member.replayed = null;
          },
        )
        .finally(() => {
          checking = null;
        });
      return checking;
    },
    async close() {
      await member.prisma.$disconnect();
      await pool.end();
    },
  };
  return member;
}
