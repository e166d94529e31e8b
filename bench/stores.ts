// `npm run bench:stores` (issue 59, goal 3): the embedded store's uncached reads against PostgreSQL's, in
// one run, and what the embedded store's socket hop costs per request.
//
// The service as `npm start` starts it (scripts/start-server.mjs: the built server on plain node,
// NODE_ENV=production), CACHE=off, on each store: the embedded default (a DATA_DIR of its own, PGlite
// on its thread behind a Unix socket) and PostgreSQL + Redis (a schema of its own, dropped after), both
// seeded with the same content. In rounds of new processes: embedded, embedded again on a copy of its
// data folder (embedded′, the A/A control: what two processes of identical code differ by) and
// PostgreSQL, loaded one at a time in turns (bench/load.ts runInTurns, the order mirrored every other
// round) on `GET /v1/posts?limit=10`, `GET /v1/posts/{slug}` and the GraphQL list of 10 that
// `bench:peers` sends. Per route: req/s and CPU per request (server; on PostgreSQL + its processes),
// embedded ÷ PostgreSQL and embedded′ ÷ embedded, medians of rounds; statements per request from the
// service's own `http_request_sql_statements`. Then the hop alone (bench/socket-hop.ts) times those
// statements: "hop ≈ X µs per request".
//
//   npm run bench:stores                 2,000 posts, 3 rounds, 32 connections, 8 s per route and server
//   --posts N  --rounds N  --seconds N  --warmup N  --connections N  --only list10,get,graphql
//   --hop-blocks N (10)  --hop-statements N (2000 per block)
import { execFileSync } from "node:child_process";
import os from "node:os";
import { parseArgs } from "node:util";
import { METRICS_TOKEN, metricsText } from "./cache-metrics.ts";
import { createBenchDatabase } from "./database.ts";
import { createDatabaseCopies } from "./database-copies.ts";
import { type LoadResult, runInTurns } from "./load.ts";
import { log } from "./log.ts";
import { type ChildServer, ownCpuMs, PROJECT_ROOT, postgresCpuMs, startServer } from "./processes.ts";
import { GRAPHQL_SHORT_LIST_QUERY, type Scenario } from "./scenarios.ts";
import { type BenchFixtures, benchSizes, seedBenchDatabase } from "./seed.ts";
import { benchServiceEnv } from "./seeded-service.ts";
import { type HopSide, measureSocketHop, median } from "./socket-hop.ts";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    only: { type: "string" },
    "hop-blocks": { type: "string", default: "10" },
    "hop-statements": { type: "string", default: "2000" },
  },
});
const rounds = Number(values.rounds);
const settings = {
  duration: Number(values.seconds),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
};
const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

const CONTENDERS = ["embedded", "embedded′", "postgres"] as const;
type ContenderName = (typeof CONTENDERS)[number];
interface Figures {
  load: LoadResult;
  /** Statements per request over the route's turns and warm-up (the service's own count). */
  statements: number | null;
}
type RouteId = "list10" | "get" | "graphql";

const get = (id: RouteId, title: string, pathname: string): Scenario => ({
  id,
  title,
  server: "service",
  steps: [{ label: id, method: "GET", key: "public", path: pathname, expectStatus: 200 }],
});
const routes = (f: BenchFixtures): Scenario[] => [
  get("list10", "GET /v1/posts?limit=10", "/v1/posts?limit=10"),
  get("get", "GET /v1/posts/{slug}", `/v1/posts/${f.postSlug}`),
  {
    id: "graphql",
    title: "POST /graphql posts(limit:10), bench:peers' document",
    server: "service",
    steps: [
      {
        label: "graphql",
        method: "POST",
        key: "public",
        path: "/graphql",
        body: { query: GRAPHQL_SHORT_LIST_QUERY },
        expectStatus: 200,
      },
    ],
  },
];

log(
  `npm run bench:stores -- ${process.argv.slice(2).join(" ")} (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.versions.node}, ${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")})`,
);
// The build `npm start` runs, made once here: two servers starting at once would each rebuild it.
execFileSync(process.execPath, ["scripts/build-server.mjs", "--no-template"], {
  cwd: PROJECT_ROOT,
  stdio: "ignore",
});

const embeddedData = await createDatabaseCopies({ embedded: true, databaseUrl });
const postgres = await createBenchDatabase({ embedded: false, databaseUrl });
try {
  log(`Embedded: DATA_DIR ${embeddedData.location} (and a copy); PostgreSQL: ${postgres.location}`);
  const sizes = benchSizes(Number(values.posts));
  const seeded = {
    embedded: await seedBenchDatabase(embeddedData.first, sizes),
    postgres: await seedBenchDatabase(postgres.env, sizes),
  };
  const copy = await embeddedData.copy();
  log(
    `Seeded ${sizes.posts} posts on each (embedded ${(seeded.embedded.seedMs / 1000).toFixed(1)} s, PostgreSQL ${(seeded.postgres.seedMs / 1000).toFixed(1)} s, + VACUUM ANALYZE)`,
  );
  const serviceEnv = (env: Record<string, string>, embedded: boolean) =>
    benchServiceEnv({ env }, embedded, {
      NODE_ENV: "production",
      CACHE: "off",
      METRICS_TOKEN,
      RATE_LIMIT_UNAUTHENTICATED: "100000000",
    });
  const sides: Record<ContenderName, { env: Record<string, string>; fixtures: BenchFixtures }> = {
    embedded: { env: serviceEnv(embeddedData.first, true), fixtures: seeded.embedded.fixtures },
    "embedded′": { env: serviceEnv(copy, true), fixtures: seeded.embedded.fixtures },
    postgres: { env: serviceEnv(postgres.env, false), fixtures: seeded.postgres.fixtures },
  };
  const only = values.only?.split(",").map((s) => s.trim());
  const chosen = routes(seeded.embedded.fixtures).filter((r) => !only || only.includes(r.id));
  log(
    `Servers: scripts/start-server.mjs (npm start), NODE_ENV=production, CACHE=off, public key; ${rounds} rounds of new processes (embedded, embedded′ the control, PostgreSQL + Redis); ${settings.connections} connections, ${settings.warmup} s warm-up per server and route, then ${settings.duration} s each in turns of 2 s`,
  );
  const results = new Map<string, Record<ContenderName, Figures>[]>(chosen.map((r) => [r.id, []]));
  for (let round = 0; round < rounds; round++) {
    const servers: ChildServer[] = [];
    try {
      for (const name of CONTENDERS)
        servers.push(
          await startServer({
            name: `${name} (round ${round + 1})`,
            script: "scripts/start-server.mjs",
            nodeBinary: process.execPath,
            env: sides[name].env,
          }),
        );
      const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
      for (const r of chosen) {
        const scenarios = CONTENDERS.map((name) => scenarioFor(r, sides[name].fixtures));
        await checkAnswers(
          servers,
          scenarios,
          CONTENDERS.map((name) => sides[name].fixtures.publicKey),
        );
        const before = await Promise.all(servers.map((s) => statementCounts(s.url)));
        const loads = await runInTurns(
          order.map((index) => ({
            baseUrl: servers[index]!.url,
            scenario: scenarios[index]!,
            keys: { public: sides[CONTENDERS[index]!].fixtures.publicKey, private: "" },
            meters: {
              server: servers[index]!.cpuMs,
              database: CONTENDERS[index] === "postgres" ? postgresCpuMs : () => null,
              loadGenerator: ownCpuMs,
            },
          })),
          { public: "", private: "" },
          settings,
        );
        const after = await Promise.all(servers.map((s) => statementCounts(s.url)));
        const figures = {} as Record<ContenderName, Figures>;
        for (const [index, name] of CONTENDERS.entries())
          figures[name] = {
            load: loads[order.indexOf(index)]!,
            statements: statementsPerRequest(before[index]!, after[index]!),
          };
        results.get(r.id)!.push(figures);
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  }
  const statementsByRoute = new Map<string, number>();
  for (const r of chosen) {
    log("");
    log(r.title);
    const rows = results.get(r.id)!;
    log(roundsTable(rows));
    statementsByRoute.set(r.id, median(rows.map((row) => row.embedded.statements ?? NaN)));
  }

  const blocks = Number(values["hop-blocks"]);
  const perBlock = Number(values["hop-statements"]);
  log("");
  log(
    `The socket hop alone (bench/socket-hop.ts), on copies of the seeded data folder: one statement after another, ${blocks} blocks of ${perBlock} per side in turn, medians of blocks, per statement; CPU is this whole process's (PGlite's thread included). socket: node-postgres → Unix socket → the wire server → PGlite on its thread (pgExecutor, as the server); database: the same frontend messages run in PGlite on this thread by the wire server's own runFrontendMessages (the database thread's work); driver: PGlite's own driver in-process (pgliteExecutor). hop = socket − database.`,
  );
  const hops = await measureSocketHop(embeddedData.first.DATA_DIR as string, { blocks, perBlock });
  log(
    "statement        socket wall / CPU µs   database wall / CPU µs   driver wall / CPU µs   hop wall µs (blocks)   hop CPU µs",
  );
  const pair = (side: HopSide) => `${fixed(side.wallUs, 1)} / ${fixed(side.cpuUs, 1)}`;
  for (const h of hops) {
    log(
      [
        h.statement.label.padEnd(16),
        pair(h.sides.socket).padStart(21),
        pair(h.sides.database).padStart(24),
        pair(h.sides.driver).padStart(22),
        `${fixed(h.sides.socket.wallUs - h.sides.database.wallUs, 1)} (${range(h.blockHopsUs, 1)})`.padStart(
          22,
        ),
        fixed(h.sides.socket.cpuUs - h.sides.database.cpuUs, 1).padStart(12),
      ].join(" "),
    );
  }
  const trivial = hops[0]!.sides;
  const hopUs = trivial.socket.wallUs - trivial.database.wallUs;
  const hopCpuUs = trivial.socket.cpuUs - trivial.database.cpuUs;
  for (const r of chosen) {
    const n = statementsByRoute.get(r.id) ?? NaN;
    log(
      `${r.id.padEnd(8)} hop ≈ ${fixed(n * hopUs, 0)} µs per request (${fixed(n, 2)} statements × ${fixed(hopUs, 1)} µs), of which CPU ${fixed(n * hopCpuUs, 0)} µs (× ${fixed(hopCpuUs, 1)} µs)`,
    );
  }
} finally {
  await embeddedData.drop();
  await postgres.drop();
}

/** The route as one store's seed names it (the slug is the same on both: the seed is deterministic). */
function scenarioFor(r: Scenario, f: BenchFixtures): Scenario {
  if (r.id !== "get") return r;
  return get("get", r.title, `/v1/posts/${f.postSlug}`);
}

/** Each server answers 200 with data, and the stores' answers are the same size, before any load. */
async function checkAnswers(servers: ChildServer[], scenarios: Scenario[], keys: string[]): Promise<void> {
  const sizes: number[] = [];
  for (const [index, server] of servers.entries()) {
    const step = scenarios[index]!.steps[0]!;
    const response = await fetch(`${server.url}${step.path as string}`, {
      method: step.method,
      headers: { authorization: keys[index]!, "content-type": "application/json" },
      body: step.body ? JSON.stringify(step.body) : undefined,
    });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"'))
      throw new Error(`${server.name} ${scenarios[index]!.id}: ${response.status} ${text.slice(0, 300)}`);
    sizes.push(text.length);
  }
  // Ids and timestamps differ between the seeds; a different size beyond them is different content.
  if (Math.max(...sizes) > Math.min(...sizes) * 1.05)
    throw new Error(`${scenarios[0]!.id}: answers of different sizes on the stores: ${sizes.join(", ")}`);
}

interface StatementCounts {
  /** By route label: [sum of statements, requests]. */
  byRoute: Map<string, [number, number]>;
}

async function statementCounts(baseUrl: string): Promise<StatementCounts | null> {
  const text = await metricsText(baseUrl);
  if (text === null) return null;
  const byRoute = new Map<string, [number, number]>();
  for (const line of text.split("\n")) {
    const match = /^http_request_sql_statements_(sum|count)\{route="([^"]*)"\} (\S+)$/.exec(line);
    if (!match) continue;
    const entry = byRoute.get(match[2]!) ?? [0, 0];
    entry[match[1] === "sum" ? 0 : 1] = Number(match[3]);
    byRoute.set(match[2]!, entry);
  }
  return { byRoute };
}

/** Statements per request of the route that took the load between two readings (the most requests). */
function statementsPerRequest(before: StatementCounts | null, after: StatementCounts | null): number | null {
  if (!before || !after) return null;
  let best: [number, number] = [0, 0];
  for (const [route, [sum, count]] of after.byRoute) {
    const [sumBefore, countBefore] = before.byRoute.get(route) ?? [0, 0];
    if (count - countBefore > best[1]) best = [sum - sumBefore, count - countBefore];
  }
  return best[1] > 0 ? best[0] / best[1] : null;
}

function fixed(n: number | null | undefined, digits: number): string {
  return n === null || n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits);
}
function range(list: number[], digits = 3): string {
  const finite = list.filter((n) => Number.isFinite(n));
  return finite.length ? `${fixed(Math.min(...finite), digits)}–${fixed(Math.max(...finite), digits)}` : "–";
}

/** Server CPU per request, plus PostgreSQL's where it runs apart (the embedded database is in the server). */
function totalCpuUs(f: Figures): number {
  return ((f.load.cpuMsPerRequest ?? NaN) + (f.load.databaseCpuMsPerRequest ?? 0)) * 1000;
}

function roundsTable(rows: Record<ContenderName, Figures>[]): string {
  const rps = (row: Record<ContenderName, Figures>, name: ContenderName) => row[name].load.rps;
  const lines = [
    "round  embedded req/s  embedded′ req/s  PostgreSQL req/s  emb÷PG  emb′÷emb  CPU µs/req emb / emb′ / PG app+db  emb÷PG CPU  SQL/req emb / PG  failed  KB/resp",
    ...rows.map((row, index) => {
      const failed = CONTENDERS.reduce(
        (sum, name) => sum + row[name].load.unexpected + row[name].load.errors + row[name].load.timeouts,
        0,
      );
      const pg = row.postgres.load;
      return [
        String(index + 1).padEnd(5),
        fixed(rps(row, "embedded"), 0).padStart(15),
        fixed(rps(row, "embedded′"), 0).padStart(16),
        fixed(rps(row, "postgres"), 0).padStart(17),
        fixed(rps(row, "embedded") / rps(row, "postgres"), 3).padStart(7),
        fixed(rps(row, "embedded′") / rps(row, "embedded"), 3).padStart(9),
        `   ${fixed(totalCpuUs(row.embedded), 0)} / ${fixed(totalCpuUs(row["embedded′"]), 0)} / ${fixed((pg.cpuMsPerRequest ?? NaN) * 1000, 0)}+${fixed((pg.databaseCpuMsPerRequest ?? NaN) * 1000, 0)}`.padEnd(
          35,
        ),
        fixed(totalCpuUs(row.embedded) / totalCpuUs(row.postgres), 3).padStart(11),
        `${fixed(row.embedded.statements, 2)} / ${fixed(row.postgres.statements, 2)}`.padStart(18),
        String(failed).padStart(7),
        fixed(row.embedded.load.bytesPerResponse / 1024, 1).padStart(8),
      ].join(" ");
    }),
  ];
  const ratios = (f: (row: Record<ContenderName, Figures>) => number) =>
    rows.map(f).filter((n) => Number.isFinite(n));
  const ofPg = ratios((row) => rps(row, "embedded") / rps(row, "postgres"));
  const control = ratios((row) => rps(row, "embedded′") / rps(row, "embedded"));
  const cpuOfPg = ratios((row) => totalCpuUs(row.embedded) / totalCpuUs(row.postgres));
  const controlCpu = ratios((row) => totalCpuUs(row["embedded′"]) / totalCpuUs(row.embedded));
  lines.push(
    `median of rounds: embedded ÷ PostgreSQL ${fixed(median(ofPg), 3)} in req/s (rounds ${range(ofPg)}), ${fixed(median(cpuOfPg), 3)} in CPU per request (server + database; rounds ${range(cpuOfPg)}); control embedded′ ÷ embedded ${fixed(median(control), 3)} in req/s (rounds ${range(control)}), ${fixed(median(controlCpu), 3)} in CPU`,
  );
  return lines.join("\n");
}
