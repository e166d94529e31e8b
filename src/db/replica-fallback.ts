// A replica's clients with the primary behind them: a statement that fails on the replica (it went
// away, it cancelled the statement for a conflict with recovery, it errs) runs once more on the
// primary, so no request fails because a replica did. Transactions and scripts never go to a replica.
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from "@prisma/driver-adapter-utils";
import type { SqlExecutor } from "./sql-executor.ts";

export type ReplicaFailure = (error: unknown) => void;

/**
 * Whether a failed statement says the replica is unwell (then it gets no reads until a check finds it
 * answering) rather than the statement at fault (bad input, which the primary refuses as well): no
 * SQLSTATE at all (a refused or dropped connection), connection exceptions (08), resources (53), an
 * operator or a deadline ending it (57: shutdown, crash, statement timeout), system errors (58, XX), and
 * a cancellation for a conflict with recovery (40001).
 */
export function replicaAtFault(error: unknown): boolean {
  const { code, cause } = error as { code?: unknown; cause?: { originalCode?: unknown } };
  const sqlState = typeof cause?.originalCode === "string" ? cause.originalCode : code;
  if (typeof sqlState !== "string" || !/^[0-9A-Z]{5}$/.test(sqlState)) return true;
  return /^(08|53|57|58|XX)/.test(sqlState) || sqlState === "40001";
}

export function fallbackExecutor(
  replica: SqlExecutor,
  primary: SqlExecutor,
  onFailure: ReplicaFailure,
): SqlExecutor {
  return {
    exec: (sql) => primary.exec(sql),
    async query(sql, params, options) {
      try {
        return await replica.query(sql, params, options);
      } catch (error) {
        onFailure(error);
        return primary.query(sql, params, options);
      }
    },
  };
}

export function fallbackAdapter(
  replica: SqlDriverAdapterFactory,
  primary: SqlDriverAdapterFactory,
  onFailure: ReplicaFailure,
): SqlDriverAdapterFactory {
  return {
    provider: replica.provider,
    adapterName: replica.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const [onReplica, onPrimary] = await Promise.all([replica.connect(), primary.connect()]);
      const retried =
        <T>(run: (adapter: SqlDriverAdapter, query: SqlQuery) => Promise<T>) =>
        async (query: SqlQuery): Promise<T> => {
          try {
            return await run(onReplica, query);
          } catch (error) {
            onFailure(error);
            return run(onPrimary, query);
          }
        };
      return {
        provider: onReplica.provider,
        adapterName: onReplica.adapterName,
        queryRaw: retried((adapter, query) => adapter.queryRaw(query)),
        executeRaw: retried((adapter, query) => adapter.executeRaw(query)),
        executeScript: (script) => onPrimary.executeScript(script),
        startTransaction: (isolationLevel) => onPrimary.startTransaction(isolationLevel),
        ...(onReplica.getConnectionInfo
          ? { getConnectionInfo: onReplica.getConnectionInfo.bind(onReplica) }
          : {}),
        async dispose() {
          await Promise.all([onReplica.dispose(), onPrimary.dispose()]);
        },
      };
    },
  };
}
