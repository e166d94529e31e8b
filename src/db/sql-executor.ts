// The smallest raw-SQL surface the migration runner and tooling need, over either driver.
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

export interface SqlExecutor {
  /** Runs one or more statements without parameters (a migration file). */
  exec(sql: string): Promise<void>;
  /** Runs one parameterised statement and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
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
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as Row[];
    },
  };
}
