// Where a read runs: on a replica when one has replayed everything the answer must show, else on the
// primary (docs/read-replicas.md). What the answer must show is the later of
//   - the primary's position when the read began (read once for all reads waiting: wal-position.ts), so
//     every write acknowledged to anyone before the read began — on this instance or another, through
//     the API or the CLI — is in the answer, notification or not; and
//   - the position a client sends back from its own last write (the Write-Position header): covered by
//     the first while it holds (the write committed before the read began), honoured for its own sake.
// Every few hundred ms each replica is asked how far it has replayed, and the primary how far it is; a
// replica that does not answer, failed a statement, or lags more than DATABASE_REPLICA_MAX_LAG_MS gets
// no reads until a later check finds it caught up. A read that needs more than the last check saw asks
// the replicas again before giving up on them.
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { ReplicaLag } from "./replica-lag.ts";
import {
  type ClientMaker,
  openReplicaMember,
  type ReplicaConnection,
  type ReplicaMember,
} from "./replica-member.ts";
import type { QueryObserver, SqlExecutor } from "./sql-executor.ts";
import { coalescedPosition, laterOf, PRIMARY_POSITION_SQL, parseLsn } from "./wal-position.ts";

/** Where one read's statements go. */
export interface ReadTarget {
  /** `primary`, or the replica's name (replica-member.ts replicaName). */
  name: string;
  prisma: PrismaClient;
  sql: SqlExecutor;
}

export type FallbackReason = "behind" | "unavailable" | "error";

/** What the router reports (src/metrics.ts, wired by the app). */
export interface ReplicaObserver {
  read(target: string): void;
  fallback(reason: FallbackReason): void;
}

export interface ReplicaRouter {
  /** The target for a read that must also reflect `clientPosition` (a client's last write). */
  readTarget(clientPosition: bigint | null): Promise<ReadTarget>;
  /** After a write committed: learns the primary's position, past the write's commit. */
  recordCommit(): Promise<void>;
  /** The newest primary position this instance knows (a write's response carries it). */
  knownPosition(): bigint | null;
  /** Each replica's replay lag in ms as last measured (null: not answering). */
  lags(): { name: string; lagMs: number | null }[];
  /** Reports reads and fallbacks from now on (the app's metrics). */
  observe(observer: ReplicaObserver): void;
  /** Checks the primary and every replica now (the poll's round; tests call it to be sure). */
  pollNow(): Promise<void>;
  close(): Promise<void>;
}

export interface ReplicaRouterOptions {
  urls: string[];
  maxLagMs: number;
  /** How often replicas are asked their replay position [250 ms]. */
  pollMs?: number;
  connection: Omit<ReplicaConnection, "url">;
  primary: { prisma: PrismaClient; sql: SqlExecutor; adapter: SqlDriverAdapterFactory };
  make: ClientMaker;
  onQuery?: QueryObserver;
  onReplicaFailure?: (name: string, error: unknown) => void;
}

const DEFAULT_POLL_MS = 250;

export function createReplicaRouter(options: ReplicaRouterOptions): ReplicaRouter {
  const { primary, maxLagMs } = options;
  let observer: ReplicaObserver | undefined;
  const members = options.urls.map((url) =>
    openReplicaMember({ ...options.connection, url }, primary, options.make, {
      onQuery: options.onQuery,
      onFailure: (member, error) => {
        observer?.fallback("error");
        options.onReplicaFailure?.(member.name, error);
      },
    }),
  );
  const lag = new ReplicaLag(maxLagMs);
  let known: bigint | null = null;
  const learn = (position: bigint | null) => {
    known = laterOf(known, position);
    if (position !== null) lag.primaryAt(position, Date.now());
    return position;
  };
  const primaryPosition = coalescedPosition(async () => {
    const rows = await primary.sql.query<{ lsn: string }>(PRIMARY_POSITION_SQL);
    const position = parseLsn(rows[0]?.lsn);
    if (position === null) throw new Error("the primary did not say its WAL position");
    return learn(position) as bigint;
  });
  const primaryTarget: ReadTarget = { name: "primary", prisma: primary.prisma, sql: primary.sql };
  let turn = 0;

  /** Replicas fit for reads at all: answering, no failure since, not too far behind. */
  const usable = () =>
    members.filter((m) => !m.failed && m.replayed !== null && !lag.tooFar(m.replayed, Date.now()));
  const fresh = (required: bigint) => usable().filter((m) => (m.replayed as bigint) >= required);
  const pick = (candidates: ReplicaMember[]): ReplicaMember | undefined =>
    candidates[turn++ % candidates.length];

  const pollNow = async () => {
    await Promise.all([primaryPosition().catch(() => null), ...members.map((m) => m.check())]);
  };
  const timer = setInterval(() => void pollNow(), options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();
  void pollNow();

  const toPrimary = (reason: FallbackReason): ReadTarget => {
    observer?.fallback(reason);
    observer?.read("primary");
    return primaryTarget;
  };

  return {
    async readTarget(clientPosition) {
      if (usable().length === 0) {
        // All down or too far behind: no reason to ask the primary for its position.
        return toPrimary("unavailable");
      }
      let required: bigint;
      try {
        required = laterOf(await primaryPosition(), clientPosition) as bigint;
      } catch {
        return toPrimary("unavailable");
      }
      let chosen = pick(fresh(required));
      if (!chosen) {
        // The last check may predate what this read needs: ask the replicas again, once.
        await Promise.all(usable().map((m) => m.check()));
        chosen = pick(fresh(required));
      }
      if (!chosen) return toPrimary("behind");
      observer?.read(chosen.name);
      return { name: chosen.name, prisma: chosen.prisma, sql: chosen.sql };
    },
    async recordCommit() {
      await primaryPosition();
    },
    knownPosition: () => known,
    lags: () =>
      members.map((m) => ({
        name: m.name,
        lagMs: m.replayed === null ? null : lag.lagMs(m.replayed, Date.now()),
      })),
    observe(next) {
      observer = next;
    },
    pollNow,
    async close() {
      clearInterval(timer);
      await Promise.all(members.map((m) => m.close()));
    },
  };
}
