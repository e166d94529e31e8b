// Where a service's uncached reads ran, as its /metrics counts them (docs/read-replicas.md, "Metrics"):
// `npm run bench:replicas` takes two readings around each measured turn.
import { metricsText } from "./cache-metrics.ts";

export interface ReplicaReads {
  /** db_reads_total{target="primary"}. */
  primary: number;
  /** db_reads_total of every other target: the replicas. */
  replica: number;
  /** db_replica_fallbacks_total by reason (behind: the freshness rule; unavailable; error). */
  fallbacks: { behind: number; unavailable: number; error: number };
}

export const NO_READS: ReplicaReads = {
  primary: 0,
  replica: 0,
  fallbacks: { behind: 0, unavailable: 0, error: 0 },
};

/** The counters so far (all zero on a service without replicas: it counts nothing); null when /metrics does not answer. */
export async function replicaReads(baseUrl: string): Promise<ReplicaReads | null> {
  const text = await metricsText(baseUrl);
  if (text === null) return null;
  const sum = (name: string, keep: (label: string) => boolean) =>
    [...text.matchAll(new RegExp(`^${name}\\{[a-z]+="([^"]*)"\\} (\\S+)$`, "gm"))]
      .filter((match) => keep(match[1]!))
      .reduce((total, match) => total + Number(match[2]), 0);
  return {
    primary: sum("db_reads_total", (target) => target === "primary"),
    replica: sum("db_reads_total", (target) => target !== "primary"),
    fallbacks: {
      behind: sum("db_replica_fallbacks_total", (reason) => reason === "behind"),
      unavailable: sum("db_replica_fallbacks_total", (reason) => reason === "unavailable"),
      error: sum("db_replica_fallbacks_total", (reason) => reason === "error"),
    },
  };
}

/** `after` − `before`, counter by counter; zero without both readings. */
export function readsBetween(before: ReplicaReads | null, after: ReplicaReads | null): ReplicaReads {
  if (!before || !after) return NO_READS;
  return {
    primary: after.primary - before.primary,
    replica: after.replica - before.replica,
    fallbacks: {
      behind: after.fallbacks.behind - before.fallbacks.behind,
      unavailable: after.fallbacks.unavailable - before.fallbacks.unavailable,
      error: after.fallbacks.error - before.fallbacks.error,
    },
  };
}

/** The sum of two tallies (turns added up). */
export function addReads(a: ReplicaReads, b: ReplicaReads): ReplicaReads {
  return {
    primary: a.primary + b.primary,
    replica: a.replica + b.replica,
    fallbacks: {
      behind: a.fallbacks.behind + b.fallbacks.behind,
      unavailable: a.fallbacks.unavailable + b.fallbacks.unavailable,
      error: a.fallbacks.error + b.fallbacks.error,
    },
  };
}
