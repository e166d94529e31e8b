// `npm run bench:hits` (issue 59, goal 2): a cache hit against the cost of sending its bytes. The service
// as `npm start` starts it (scripts/start-server.mjs: the built server on plain node; NODE_ENV=production,
// CACHE=memory, LOG_LEVEL=info: one request line per hit, written to a pipe as to a log collector) answers a single post and a list of 10 from its cache; a bare
// node:http handler (bench/bare-answer-server.ts) sends the very same bytes, headers included, from
// memory. Measured in turns (bench/load.ts runInTurns), in rounds of new processes: the service, the
// service again (the control: what two processes of identical code differ by), and the bare handler.
// Then, with --profile, one more service per route under --cpu-prof: where a hit's CPU goes, by area. That
// one runs the TypeScript sources (src/server.ts under tsx), since the built server is one bundled file
// whose frames cannot be told apart by source file.
//
//   npm run bench:hits                       PostgreSQL + Redis (as production), 2,000 posts
//   npm run bench:hits -- --embedded         the embedded store (PGlite in a worker), no Redis
//   --rounds N (3)  --seconds N (8)  --warmup N (10)  --connections N (32)  --posts N (2000)  --profile
//   --cache memory|redis (memory)
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { CapturedAnswer } from "./bare-answer-server.ts";
import { cacheLookups, hitRatio, METRICS_TOKEN } from "./cache-metrics.ts";
import { type LoadResult, runInTurns } from "./load.ts";
import { log } from "./log.ts";
import { type ChildServer, ownCpuMs, startServer } from "./processes.ts";
import type { Scenario } from "./scenarios.ts";
import { benchServiceEnv, withSeededDatabase } from "./seeded-service.ts";
import { type CallFrame, selfTimeByArea } from "./summarize-profile.ts";

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    posts: { type: "string", default: "2000" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    cache: { type: "string", default: "memory" },
    profile: { type: "boolean", default: false },
  },
});
const embedded = values.embedded;
const rounds = Number(values.rounds);
const settings = {
  duration: Number(values.seconds),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
};
if (values.cache !== "memory" && values.cache !== "redis") throw new Error("--cache is memory or redis");
if (values.cache === "redis" && embedded) throw new Error("--cache redis needs PostgreSQL (no --embedded)");

const CONTENDERS = ["service", "service′", "bare"] as const;
type ContenderName = (typeof CONTENDERS)[number];
interface Figures {
  load: LoadResult;
  hitRatio: number | null;
}

const route = (id: string, title: string, pathname: string): Scenario => ({
  id,
  title,
  server: "cached",
  steps: [{ label: title, method: "GET", key: "public", path: pathname, expectStatus: 200 }],
});

await withSeededDatabase({ embedded, posts: Number(values.posts), log }, async ({ fixtures, database }) => {
  const routes = [
    route("get", "GET /v1/posts/{slug} (one post)", `/v1/posts/${fixtures.postSlug}`),
    route("list10", "GET /v1/posts?limit=10", "/v1/posts?limit=10"),
  ];
  const keys = { public: fixtures.publicKey, private: fixtures.privateKey };
  const serviceEnv = benchServiceEnv(database, embedded, {
    NODE_ENV: "production",
    CACHE: values.cache as string,
    METRICS_TOKEN,
    RATE_LIMIT_UNAUTHENTICATED: "100000000",
    // Every request's line is part of what a hit costs (the issue: "still logged").
    LOG_LEVEL: "info",
  });
  // Two embedded servers cannot open one data folder: the control runs on a copy, made before any opens it.
  const copyDir = embedded ? mkdtempSync(path.join(os.tmpdir(), "bench-hits-copy-")) : null;
  if (copyDir) cpSync(database.env.DATA_DIR as string, copyDir, { recursive: true });
  const envOf = (name: string) =>
    copyDir && name === "service′" ? { ...serviceEnv, DATA_DIR: copyDir } : serviceEnv;
  const bareFile = path.join(os.tmpdir(), `bench-bare-${process.pid}.json`);
  log(
    `npm run bench:hits -- ${process.argv.slice(2).join(" ")} (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.versions.node}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")})`,
  );
  log(
    `${embedded ? "Embedded store" : "PostgreSQL"}, CACHE=${values.cache}, ${values.posts} posts, public key; ${rounds} rounds of new processes (service, service′ the control, bare handler); the service as npm start starts it, LOG_LEVEL=info; ${settings.connections} connections, ${settings.warmup} s warm-up per server and route, then ${settings.duration} s each in turns of 2 s`,
  );
  const results = new Map<string, Record<ContenderName, Figures>[]>(routes.map((r) => [r.id, []]));
  for (let round = 0; round < rounds; round++) {
    const services = await Promise.all(
      ["service", "service′"].map((name) =>
        startServer({
          name: `${name} (round ${round + 1})`,
          script: "scripts/start-server.mjs",
          nodeBinary: process.execPath,
          env: envOf(name),
        }),
      ),
    );
    const servers: ChildServer[] = [...services];
    try {
      // The bare handler's bytes: the first service's own hits, captured after the cache holds them.
      const answers = await Promise.all(routes.map((r) => captureHit(services[0]!, r, keys.public)));
      for (const r of routes) await captureHit(services[1]!, r, keys.public);
      writeFileSync(bareFile, JSON.stringify(answers));
      const bare = await startServer({
        name: `bare (round ${round + 1})`,
        script: "bench/bare-answer-server.ts",
        env: { BENCH_BARE_FILE: bareFile },
      });
      servers.push(bare);
      // Mirrored every other round, so no process always goes first.
      const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
      for (const r of routes) {
        const lookupsBefore = await Promise.all(servers.map((s) => cacheLookups(s.url).catch(() => null)));
        const loads = await runInTurns(
          order.map((index) => ({
            baseUrl: servers[index]!.url,
            scenario: r,
            meters: {
              server: servers[index]!.cpuMs,
              database: () => null,
              loadGenerator: ownCpuMs,
            },
          })),
          keys,
          settings,
        );
        const figures = {} as Record<ContenderName, Figures>;
        for (const [index, name] of CONTENDERS.entries()) {
          const before = lookupsBefore[index] ?? null;
          const after = index < 2 ? await cacheLookups(servers[index]!.url) : null;
          figures[name] = { load: loads[order.indexOf(index)]!, hitRatio: hitRatio(before, after) };
        }
        results.get(r.id)!.push(figures);
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  }
  for (const r of routes) {
    log("");
    log(r.title);
    log(roundsTable(results.get(r.id)!));
  }
  if (values.profile) {
    log("");
    log(
      "Where a hit's CPU goes: a service per route under --cpu-prof (which costs CPU itself), loaded alone for the same time; each area's share of the main thread's busy time × that run's server CPU per request:",
    );
    for (const r of routes) log(await profileHit(r, serviceEnv, keys));
  }
  if (copyDir) rmSync(copyDir, { recursive: true, force: true });
});

/** Asks `r` until the service answers it from its cache; the hit's status, headers and body. */
async function captureHit(server: ChildServer, r: Scenario, key: string): Promise<CapturedAnswer> {
  const step = r.steps[0]!;
  for (let attempt = 0; attempt < 5; attempt++) {
    // Identity, as the load generator asks: fetch would otherwise ask for (and decode) a compressed body.
    const response = await fetch(`${server.url}${step.path as string}`, {
      headers: { authorization: key, "accept-encoding": "identity" },
    });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200)
      throw new Error(`${r.title}: ${response.status} ${body.toString().slice(0, 200)}`);
    if (response.headers.get("x-cache") !== "HIT") continue;
    // Node adds Date, Connection and Keep-Alive itself; fetch has decoded nothing (identity encoding).
    const own = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);
    const headers = [...response.headers].filter(([name]) => !own.has(name)) as [string, string][];
    return { method: "GET", path: step.path as string, status: 200, headers, body: body.toString("base64") };
  }
  throw new Error(`${r.title}: the service never answered it from its cache (X-Cache HIT)`);
}

function fixed(n: number | null | undefined, digits: number): string {
  return n === null || n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits);
}
function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}
function range(list: number[]): string {
  return list.length ? `${fixed(Math.min(...list), 3)}–${fixed(Math.max(...list), 3)}` : "–";
}

function roundsTable(rows: Record<ContenderName, Figures>[]): string {
  const rps = (row: Record<ContenderName, Figures>, name: ContenderName) => row[name].load.rps;
  const cpuUs = (row: Record<ContenderName, Figures>, name: ContenderName) =>
    (row[name].load.cpuMsPerRequest ?? NaN) * 1000;
  const lines = [
    "round  service req/s  service′ req/s  bare req/s  service÷bare  service′÷service  CPU µs/req service / service′ / bare  hits  failed  KB/resp",
    ...rows.map((row, index) => {
      const failed = CONTENDERS.reduce(
        (sum, name) => sum + row[name].load.unexpected + row[name].load.errors + row[name].load.timeouts,
        0,
      );
      const hits = [row.service.hitRatio, row["service′"].hitRatio]
        .map((h) => (h === null ? "–" : `${(h * 100).toFixed(0)}%`))
        .join("/");
      return [
        String(index + 1).padEnd(5),
        fixed(rps(row, "service"), 0).padStart(14),
        fixed(rps(row, "service′"), 0).padStart(15),
        fixed(rps(row, "bare"), 0).padStart(11),
        fixed(rps(row, "service") / rps(row, "bare"), 3).padStart(13),
        fixed(rps(row, "service′") / rps(row, "service"), 3).padStart(17),
        `   ${CONTENDERS.map((name) => fixed(cpuUs(row, name), 0)).join(" / ")}`.padEnd(38),
        hits.padStart(8),
        String(failed).padStart(7),
        fixed(row.service.load.bytesPerResponse / 1024, 1).padStart(8),
      ].join(" ");
    }),
  ];
  const ratios = (f: (row: Record<ContenderName, Figures>) => number) =>
    rows.map(f).filter((n) => Number.isFinite(n));
  const ofBare = ratios((row) => rps(row, "service") / rps(row, "bare"));
  const control = ratios((row) => rps(row, "service′") / rps(row, "service"));
  const cpuOfBare = ratios((row) => cpuUs(row, "bare") / cpuUs(row, "service"));
  lines.push(
    `median of rounds: service ÷ bare ${fixed(median(ofBare), 3)} in req/s (rounds ${range(ofBare)}), ${fixed(median(cpuOfBare), 3)} in CPU per request (bare's ÷ the service's); control service′ ÷ service ${fixed(median(control), 3)} (rounds ${range(control)})`,
  );
  return lines.join("\n");
}

/** The areas of a hit, by the frames the profile samples (innermost first): see selfTimeByArea. */
function areaOf(frame: CallFrame): string | null {
  const { url } = frame;
  if (url.includes("/src/auth/") || url.endsWith("/src/http/request-caller.ts")) return "key check";
  if (url.includes("/src/limits/") || url.includes("/rate-limiter-flexible/")) return "rate limit";
  if (url.includes("/src/content/changes/") || url.endsWith("/src/cache/change-index.ts"))
    return "content head check";
  if (url.includes("/ioredis/") || url.includes("/redis-parser/") || url.includes("/denque/"))
    return "Redis client (the rate limit's budget)";
  if (url.includes("/src/db/") || url.includes("/node_modules/pg")) return "database client";
  if (url.includes("/src/cache/")) return "answer lookup and send";
  if (url.endsWith("/src/http/cors.ts")) return "CORS headers";
  if (
    url.includes("/pino") ||
    url.includes("/sonic-boom/") ||
    url.includes("/@pinojs/") ||
    url.includes("/quick-format-unescaped/") ||
    url.endsWith("/src/http/request-log.ts") ||
    url.endsWith("/src/logger.ts")
  )
    return "request log";
  if (url.endsWith("/src/metrics.ts") || url.includes("/prom-client/") || url.endsWith("/metrics-route.ts"))
    return "metrics";
  if (url.endsWith("/src/http/cached-read-door.ts")) return "cached-read door (routing, header checks)";
  if (url.includes("/src/")) return "other service code";
  if (url.includes("/node_modules/")) return `package ${url.split("/node_modules/").at(-1)!.split("/")[0]}`;
  // A socket's read starts at onStreamRead whoever owns the socket (the client's, Redis's, the
  // database's): what it costs itself is reading, of all three. A write belongs to whoever wrote.
  if (frame.functionName === "onStreamRead") return "socket reads (HTTP, Redis, database)";
  if (url === "node:net" || url.startsWith("node:internal/stream")) return null;
  if (url === "node:_http_outgoing" || (url === "node:_http_server" && frame.functionName === "writeHead"))
    return "node:http response (headers, socket write)";
  if (url === "node:_http_server" || url === "node:_http_common" || url === "node:_http_incoming")
    return "node:http request (parse, dispatch)";
  return null;
}

async function profileHit(
  r: Scenario,
  env: Record<string, string>,
  keys: Record<"public" | "private", string>,
): Promise<string> {
  const dir = path.join(os.tmpdir(), `bench-hits-profile-${process.pid}-${r.id}`);
  const server = await startServer({
    name: `service (profile, ${r.id})`,
    script: "src/server.ts",
    env,
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir],
  });
  let load: LoadResult;
  try {
    await captureHit(server, r, keys.public);
    [load] = (await runInTurns(
      [
        {
          baseUrl: server.url,
          scenario: r,
          meters: { server: server.cpuMs, database: () => null, loadGenerator: ownCpuMs },
        },
      ],
      keys,
      settings,
    )) as [LoadResult];
  } finally {
    await server.stop();
  }
  const { busyMs, byArea } = selfTimeByArea(dir, areaOf, {
    skipMs: server.startupMs + settings.warmup * 1000,
  });
  const perRequestUs = (load.cpuMsPerRequest ?? NaN) * 1000;
  const rows = [...byArea]
    .sort((a, b) => b[1] - a[1])
    .map(
      ([area, ms]) =>
        `  ${area.padEnd(46)} ${fixed((ms / busyMs) * 100, 1).padStart(5)}%  ${fixed((ms / busyMs) * perRequestUs, 1).padStart(6)} µs`,
    );
  return [
    `${r.title}: ${fixed(load.rps, 0)} req/s under the profiler, ${fixed(perRequestUs, 0)} µs of server CPU per request, ${fixed(busyMs / 1000, 1)} s busy on the main thread after start-up and warm-up`,
    ...rows,
  ].join("\n");
}
