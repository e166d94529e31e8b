// A replica's clients with the primary behind them: a statement that fails on the replica (it went
// away, it cancelled the statement for a conflict with recovery, it errs) runs once more on the
// primary, so no request fails because a replica did. Transactions and scripts never go to a replica.
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from "@prisma/driver-adapter-utils";
import type { SqlExecutor } from "./sql-executor.ts";

export type ReplicaFailure = (error: unknown) => void;

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
