// Raw SQL over either driver: migrations, readiness, full-text search and the post read model.
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

export interface SqlExecutor {
  /** Runs one or more statements without parameters (a migration file). */
  exec(sql: string): Promise<void>;
  /** Runs one parameterised statement and returns its rows. */
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<Row[]>;
}

export interface QueryOptions {
  /**
   * Prepare the statement under this name, once per connection, so PostgreSQL parses and plans it
   * once rather than on every call (PGlite runs in-process and ignores it). One name, one text.
   */
  name?: string;
}

export function pgliteExecutor(db: PGlite): SqlExecutor {
  return {
    async exec(sql) {
      await db.exec(sql);
    },
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await db.query<Row>(sql, params)).rows;
    },
  };
}

export function pgExecutor(client: pg.Pool | pg.PoolClient | pg.Client): SqlExecutor {
  return {
    async exec(sql) {
      await client.query(sql);
    },
    async query<Row>(sql: string, params: unknown[] = [], options: QueryOptions = {}) {
      const result = options.name
        ? await client.query({ name: options.name, text: sql, values: params })
        : await client.query(sql, params);
      return result.rows as Row[];
    },
  };
}

/**
 * The same executor, reporting each statement's text first (statement counts in tests and the bench);
 * without an observer, the executor itself.
 */
export function observedExecutor(executor: SqlExecutor, onQuery: QueryObserver | undefined): SqlExecutor {
  if (!onQuery) return executor;
  return {
    exec: (sql) => {
      onQuery(sql, "raw");
      return executor.exec(sql);
    },
    query: (sql, params, options) => {
      onQuery(sql, "raw");
      return executor.query(sql, params, options);
    },
  };
}

/** Sees each statement: `prisma` for Prisma's queries, `raw` for those through a SqlExecutor. */
export type QueryObserver = (sql: string, source: "prisma" | "raw") => void;
