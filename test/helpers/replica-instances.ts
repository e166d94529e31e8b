// A service instance on a replication cluster's primary (test/helpers/replication-cluster.ts), routing
// its uncached reads to the replica unless told not to: the app every read-replica test starts.
import { openDatabase } from "../../src/db/database.ts";
import type { ReplicationCluster } from "./replication-cluster.ts";
import { startTestApp, type TestApp } from "./test-app.ts";

export interface ReplicaInstanceOptions {
  /** The PostgreSQL schema the instances share on the primary. */
  schema: string;
  metricsToken: string;
  /** The response caches; "redis" shares the test's REDIS_URL between instances. */
  cache?: "off" | "memory" | "redis";
  /** false: an instance without replicas (the truth a property test compares with). */
  replicas?: boolean;
  /** Far above the tests' pauses by default: a paused replica is "behind", not left out. */
  maxLagMs?: number;
}

export function startReplicaInstance(
  cluster: ReplicationCluster,
  options: ReplicaInstanceOptions,
): Promise<TestApp> {
  const cache = options.cache ?? "off";
  return startTestApp({
    env: {
      CACHE: cache,
      METRICS_TOKEN: options.metricsToken,
      ...(cache === "redis" ? { REDIS_URL: process.env.REDIS_URL as string } : {}),
    },
    database: () =>
      openDatabase(
        {
          kind: "postgres",
          url: cluster.primaryUrl,
          schema: options.schema,
          poolSize: 4,
          statementTimeoutMs: 5_000,
        },
        {
          migrate: true,
          ...(options.replicas === false
            ? {}
            : {
                replicas: { urls: [cluster.replicaUrl], maxLagMs: options.maxLagMs ?? 120_000, pollMs: 100 },
              }),
        },
      ),
  });
}
