// `npm run bench:replicas` (issue 58, "Figures"): uncached reads with and without a read replica, in one
// run. The bench starts its own PostgreSQL 15 primary and streaming replica (test/helpers/
// replication-cluster.ts), seeds them through the primary, and starts two services on them: one without
// DATABASE_REPLICA_URLS, one with the replica. Both are loaded in turns (bench/load.ts runInTurns:
// A B B A …) with the response cache off, so every read is computed from the database, while a writer
// saves a published post twice a second through the service under load. Per service:
//   - the share of reads the replica answered (the service's db_reads_total{target}),
//   - the primary's CPU per read: every process of the primary's postmaster, before and after each turn
//     (/proc), writes and the replica's WAL sender included, divided by the reads answered; the same
//     for the replica,
//   - reads the freshness rule sent back to the primary (db_replica_fallbacks_total{reason="behind"}),
//   - latency p50 / p99 and req/s.
// On this machine the replica shares the primary's two cores: throughput cannot grow, CPU per read moves.
//
//   npm run bench:replicas                  2,000 posts, 8 connections, 15 s warm-up, 30 s per service
//   --seconds N  --warmup N  --connections N  --posts N  --writes-per-second N
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startReplicationCluster } from "../test/helpers/replication-cluster.ts";
import { METRICS_TOKEN } from "./cache-metrics.ts";
import { type BenchDatabase, createBenchDatabase } from "./database.ts";
import { type LoadResult, runInTurns, type TurnContender } from "./load.ts";
import { log } from "./log.ts";
import { patchOnce, publishedSlugs } from "./post-writes.ts";
import { preflightScenario } from "./preflight.ts";
import { type ChildServer, ownCpuMs, postmasterCpuMs, startServer } from "./processes.ts";
import { addReads, NO_READS, type ReplicaReads, readsBetween, replicaReads } from "./replica-metrics.ts";
import { GRAPHQL_LIST_QUERY, type Scenario } from "./scenarios.ts";
import { benchSizes, seedBenchDatabase } from "./seed.ts";
import { benchServiceEnv } from "./seeded-service.ts";

const POSTGRES_15 = "/usr/lib/postgresql/15/bin";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    seconds: { type: "string", default: "30" },
    warmup: { type: "string", default: "15" },
    connections: { type: "string", default: "8" },
    "writes-per-second": { type: "string", default: "2" },
  },
});
const settings = {
  duration: Number(values.seconds),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
};
const writesPerSecond = Number(values["writes-per-second"]);

/** What one service's turns add up to, beside autocannon's figures. */
interface Tally {
  reads: ReplicaReads;
  replicaCpuMs: number;
  saves: number;
  failedSaves: number;
  /** Wall time from before to after its turns: autocannon ends a run on its once-a-second tick, after the last response. */
  turnMs: number;
}

if (!existsSync(`${POSTGRES_15}/initdb`)) {
  process.stderr.write(`bench:replicas needs PostgreSQL 15's programs in ${POSTGRES_15}\n`);
  process.exit(2);
}

const started = performance.now();
// A real server's memory rather than the tests' 16 MB: the seeded content fits in shared buffers on
// both, so CPU per read is the statements', not copies from the kernel's page cache.
const cluster = await startReplicationCluster({
  settings: ["shared_buffers = 128MB", "max_connections = 100"],
});
const servers: ChildServer[] = [];
let writer: Writer | undefined;
let database: BenchDatabase | undefined;
try {
  const pids = cluster.postmasterPids();
  database = await createBenchDatabase({ embedded: false, databaseUrl: cluster.primaryUrl });
  log(
    `PostgreSQL 15 primary (postmaster ${pids.primary}) and streaming replica (${pids.replica}); ${database.location}`,
  );
  const seed = await seedBenchDatabase(database.env, benchSizes(Number(values.posts)));
  await cluster.waitForReplay(60_000);
  log(
    `Seeded ${values.posts} posts in ${(seed.seedMs / 1000).toFixed(1)} s (+ VACUUM ANALYZE), replayed on the replica`,
  );

  const env = benchServiceEnv(database, false, {
    NODE_ENV: "production",
    CACHE: "off",
    RATE_LIMIT_UNAUTHENTICATED: "100000000",
    METRICS_TOKEN,
  });
  const without = await startServer({ name: "without replica", script: "src/server.ts", env });
  servers.push(without);
  const withReplica = await startServer({
    name: "with replica",
    script: "src/server.ts",
    env: { ...env, DATABASE_REPLICA_URLS: cluster.replicaUrl },
  });
  servers.push(withReplica);

  const keys = { public: seed.fixtures.publicKey, private: seed.fixtures.privateKey };
  const slugs = await publishedSlugs(without.url, keys.public);
  const scenario = readMix(slugs);
  for (const server of servers) {
    const check = await preflightScenario(server, scenario, keys);
    if (check.problem || check.text.includes('"errors"'))
      throw new Error(`${server.name}: ${check.problem ?? check.text.slice(0, 300)}`);
  }

  // The writer saves through the service under load at the moment (the one a turn is about to load).
  let active = without;
  const edited = () => slugs[Math.floor(Math.random() * slugs.length)]!;
  writer = startWriter(writesPerSecond, () => patchOnce(active.url, keys.private, edited));
  const sides = [without, withReplica].map((server) => ({ server, tally: newTally() }));
  const contenders: TurnContender[] = sides.map(({ server, tally }) => {
    let before: {
      reads: ReplicaReads | null;
      replicaCpu: number | null;
      saves: number;
      failed: number;
      at: number;
    };
    return {
      baseUrl: server.url,
      scenario,
      meters: {
        server: server.cpuMs,
        // The primary's CPU only: the replica's is read around each turn (afterTurn).
        database: () => postmasterCpuMs(pids.primary),
        loadGenerator: ownCpuMs,
      },
      async beforeTurn() {
        active = server;
        before = {
          reads: await replicaReads(server.url),
          replicaCpu: postmasterCpuMs(pids.replica),
          ...writer!.counts(),
          at: performance.now(),
        };
      },
      async afterTurn() {
        const replicaCpu = postmasterCpuMs(pids.replica);
        const counts = writer!.counts();
        tally.turnMs += performance.now() - before.at;
        tally.reads = addReads(tally.reads, readsBetween(before.reads, await replicaReads(server.url)));
        tally.replicaCpuMs += (replicaCpu ?? 0) - (before.replicaCpu ?? 0);
        tally.saves += counts.saves - before.saves;
        tally.failedSaves += counts.failed - before.failed;
      },
    };
  });
  log(
    `Load: ${settings.connections} connections, cache off, a read mix of single posts, list pages and GraphQL lists; ` +
      `${settings.warmup} s warm-up, ${settings.duration} s per service in turns; a writer at ${writesPerSecond} saves/s`,
  );
  const results = await runInTurns(contenders, keys, settings);
  await writer.stop();
  writer = undefined;

  log("");
  log(table(sides.map((side, index) => ({ ...side, result: results[index]! }))));
  const replicaSide = sides[1]!;
  const perRead = replicaSide.tally.replicaCpuMs / Math.max(1, replicaSide.tally.reads.replica);
  log("");
  log(
    `The replica's CPU per read it answered: ${perRead.toFixed(3)} ms (its WAL replay included): one core of ` +
      `a replica answers about ${Math.round(1000 / perRead)} reads/s of this mix at full use.`,
  );
  log(
    `Load average at the end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}; ${((performance.now() - started) / 1000).toFixed(0)} s in all.`,
  );
} finally {
  await writer?.stop();
  for (const server of servers) await server.stop();
  // Its schema goes with the cluster; its temporary media folder does not.
  await database?.drop();
  await cluster.close();
}

/** Uncached reads as a site's visitors send them, both doors: a single post, a list page, a GraphQL list. */
function readMix(slugs: readonly string[]): Scenario {
  return {
    id: "replica-reads",
    title: "uncached read mix",
    server: "service",
    steps: [
      {
        label: "GET /v1/posts/:slug",
        method: "GET",
        key: "public",
        path: (_ctx, n) => `/v1/posts/${slugs[n % slugs.length]}`,
        expectStatus: 200,
      },
      {
        label: "GET /v1/posts?limit=10&page=N",
        method: "GET",
        key: "public",
        path: (_ctx, n) => `/v1/posts?limit=10&page=${1 + (n % 20)}`,
        expectStatus: 200,
      },
      {
        label: "POST /graphql posts(limit: 10)",
        method: "POST",
        key: "public",
        path: "/graphql",
        body: { query: GRAPHQL_LIST_QUERY, variables: { limit: 10 } },
        expectStatus: 200,
      },
    ],
  };
}

function newTally(): Tally {
  return { reads: NO_READS, replicaCpuMs: 0, saves: 0, failedSaves: 0, turnMs: 0 };
}

interface Writer {
  counts(): { saves: number; failed: number };
  stop(): Promise<void>;
}

/** Saves `perSecond` times a second, each on its own schedule (a slow save does not delay the next). */
function startWriter(perSecond: number, save: () => Promise<boolean>): Writer {
  let saves = 0;
  let failed = 0;
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const done: Promise<void> = save()
      .then((ok) => {
        if (ok) saves++;
        else failed++;
      })
      .finally(() => pending.delete(done));
    pending.add(done);
  }, 1_000 / perSecond);
  return {
    counts: () => ({ saves, failed }),
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
    },
  };
}

function table(rows: { server: ChildServer; tally: Tally; result: LoadResult }[]): string {
  const head = [
    "service",
    "req/s",
    "p50 ms",
    "p99 ms",
    "reads",
    "on replica",
    "behind→primary",
    "other→primary",
    "primary CPU ms/read",
    "replica CPU ms/read",
    "service CPU ms/read",
    "saves/s",
    "failed",
  ];
  const lines = rows.map(({ server, tally, result }) => {
    const { reads } = tally;
    const counted = reads.primary + reads.replica;
    const fixed = (n: number | null, digits: number) => (n === null ? "n/a" : n.toFixed(digits));
    return [
      server.name,
      result.rps.toFixed(0),
      fixed(result.latencyMs.p50, 1),
      fixed(result.latencyMs.p99, 1),
      String(result.requests),
      counted > 0 ? `${((reads.replica / counted) * 100).toFixed(1)}%` : "0% (none)",
      String(reads.fallbacks.behind),
      String(reads.fallbacks.unavailable + reads.fallbacks.error),
      fixed(result.databaseCpuMsPerRequest, 3),
      fixed(tally.replicaCpuMs / Math.max(1, result.requests), 3),
      fixed(result.cpuMsPerRequest, 3),
      ((tally.saves * 1000) / Math.max(1, tally.turnMs)).toFixed(2),
      String(result.non2xx + result.errors + result.timeouts + tally.failedSaves),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const render = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [render(head), ...lines.map(render)].join("\n");
}
