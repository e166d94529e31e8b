// What a database is and how it is asked for: the types every store's file implements
// (server-database.ts, embedded-database.ts) and database.ts opens, apart so that those files import no
// file that imports them.
import type { Config } from "../config.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { EmbeddedWorker } from "./embedded-thread-supervisor.ts";
import type { Listening } from "./notifications.ts";
import type { ReplicaRouter } from "./replica-router.ts";
import type { QueryObserver, SqlExecutor } from "./sql-executor.ts";

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
