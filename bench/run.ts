// `npm run bench`: seeds a fresh database, measures the raw baseline and the service under load, counts
// SQL statements per request, prints a table and writes it as JSON under bench/results/.
//
//   1. fresh database: a new PostgreSQL schema (DATABASE_URL), or `--embedded` with a temporary DATA_DIR
//   2. seed: 10,000 posts, 50 categories, 200 tags, 20 authors, 5 custom fields (batched), timed
//   3. statements per request: in-process app (openRuntime + buildApp), one counted request per route
//   4. baseline (bench/baseline-server.ts, its own process) under load: GET /v1/posts?limit=10
//   5. the service (`node --import tsx src/server.ts`, its own process) under load, route by route; the
//      routes that change content (the writes) last, after every read
//   6. table + JSON; the schema / data directory is dropped
//   7. on PostgreSQL, PostGraphile 5 against the uncached read path (bench/peers.ts; `--no-peers` skips it)
//
// `--keys` runs only the keys stage instead (issue 57, bench/keys.ts): the service before scoped keys and
// this checkout side by side, cached and uncached reads in turns, the key resolver in-process.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cacheLookups, hitRatio, METRICS_TOKEN } from "./cache-metrics.ts";
import { firstDifference } from "./compare-bodies.ts";
import { createBenchDatabase } from "./database.ts";
import { runKeysStage } from "./keys.ts";
import { type CpuMeters, type LoadResult, runInTurns, runLoad } from "./load.ts";
import { log } from "./log.ts";
import { parseBenchOptions } from "./options.ts";
import { peerNode } from "./postgraphile.ts";
import { preflightScenario } from "./preflight.ts";
import type { PrerenderedAnswer } from "./prerendered-server.ts";
import { type ChildServer, ownCpuMs, PROJECT_ROOT, postgresCpuMs, startServer } from "./processes.ts";
import { type BenchReport, formatReport, machineInfo, type RouteReport, writeReport } from "./report.ts";
import { benchScenarios, renderStep, type Scenario, type ServerKind, type Step } from "./scenarios.ts";
import { benchSizes, exampleFixtures, postsAnalysedAt, seedBenchDatabase } from "./seed.ts";
import { countStatements } from "./statements.ts";
import { type ProfileSummary, summarizeProfile } from "./summarize-profile.ts";

/** The cached service's CACHE_MAX_BYTES, set here (the default) so the miss can fill it before it is measured. */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;

const options = parseBenchOptions(process.argv.slice(2), process.env);

if (options.list) {
  for (const scenario of benchScenarios(exampleFixtures()))
    log(`${scenario.id.padEnd(12)} ${scenario.title}`);
  process.exit(0);
}

if (options.keys) process.exit(await runKeysStage(options));

const machine = machineInfo();
const settings = {
  duration: options.duration,
  warmup: options.warmup,
  turnsWarmup: options.turnsWarmup,
  connections: options.connections,
  posts: options.posts,
};
log(
  `Bench: ${options.embedded ? "embedded PGlite" : "PostgreSQL"}, Node ${machine.node}, ${machine.cpus} CPUs, load average ${machine.loadAverageAtStart.join(" ")}`,
);
log(
  `Load: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per route (${settings.turnsWarmup} s warm-up in turns)`,
);

const database = await createBenchDatabase({ embedded: options.embedded, databaseUrl: options.databaseUrl });
log(`Database: ${database.location}`);
let exitCode = 0;
try {
  log(`Seeding ${settings.posts.toLocaleString("en-US")} posts…`);
  const seed = await seedBenchDatabase(database.env, benchSizes(settings.posts), {
    analyze: options.analyze,
  });
  log(
    `  seeded in ${(seed.seedMs / 1000).toFixed(1)} s (+ ${options.analyze ? "VACUUM ANALYZE, " : ""}CHECKPOINT ${(seed.vacuumMs / 1000).toFixed(1)} s)`,
  );
  if (!options.analyze)
    log(
      `  statistics missing: no ANALYZE after seeding, autovacuum off for these tables; the services ${options.serviceAnalyze ? "analyse stale tables at start (DATABASE_ANALYZE_INTERVAL_MS)" : "never analyse (--no-service-analyze)"}`,
    );

  const keys: Record<Step["key"], string> = {
    public: seed.fixtures.publicKey,
    private: seed.fixtures.privateKey,
  };
  const scenarios = benchScenarios(seed.fixtures).filter(
    (s) =>
      (s.server === "baseline" ? options.baseline : true) &&
      (options.only.length === 0 ||
        options.only.includes(s.id) ||
        // The yardstick always runs; another baseline only with the route it mirrors (and, for the
        // pre-rendered ones, the route whose answers it serves).
        s.id === "baseline" ||
        (s.runsWith !== undefined && options.only.includes(s.runsWith)) ||
        (s.sameBodyAs !== undefined && options.only.includes(s.sameBodyAs)) ||
        options.only.some(
          (id) => id === `cached-${s.sameBodyAs}` || (s.server === "service" && id === `cached-${s.id}`),
        )),
  );

  log("Counting SQL statements per request (in-process)…");
  const statements = await countStatements(database.env, database.mode, scenarios, keys);

  const loads = new Map<string, LoadResult>();
  const problems = new Map<string, string>();
  const load = { duration: settings.duration, warmup: settings.warmup, connections: settings.connections };

  // With --profile both servers run under --cpu-prof: the baseline's profile shows what any server on
  // this stack pays (HTTP, pg protocol, JSON), so the service's excess is the difference.
  const profileRoot = path.join(
    PROJECT_ROOT,
    "bench",
    "profiles",
    new Date().toISOString().replace(/[:.]/g, "-"),
  );
  const cpuProf = (dir: string) => {
    if (!options.profile) return [];
    mkdirSync(dir, { recursive: true });
    return ["--cpu-prof", "--cpu-prof-dir", dir];
  };

  // Each server runs alone, in this order: the baseline, the service with its cache off (every read
  // computed, the figure of the read path), with its cache on, and the pre-rendered yardstick, which
  // serves the answers the service gave (so it needs them first).
  const cacheRatios = new Map<string, number | null>();
  const prerenderedFile = path.join(os.tmpdir(), `bench-prerendered-${process.pid}.json`);
  const serviceEnv = {
    ...database.env,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    RATE_LIMIT_AUTHENTICATED: "1000000000",
    RATE_LIMIT_UNAUTHENTICATED: "1000000000",
    ...(options.serviceAnalyze ? {} : { DATABASE_ANALYZE_INTERVAL_MS: "0" }),
  };
  const serverSetups: Record<ServerKind, { script: string; env: Record<string, string> }> = {
    baseline: { script: "bench/baseline-server.ts", env: database.env },
    service: { script: "src/server.ts", env: { ...serviceEnv, CACHE: "off" } },
    cached: {
      script: "src/server.ts",
      env: { ...serviceEnv, CACHE: "memory", CACHE_MAX_BYTES: String(CACHE_MAX_BYTES), METRICS_TOKEN },
    },
    prerendered: {
      script: "bench/prerendered-server.ts",
      env: { ...database.env, BENCH_PRERENDERED_FILE: prerenderedFile },
    },
  };
  const baselineBodies = new Map<string, unknown>();
  const serviceAnswers = new Map<string, PrerenderedAnswer>();
  const bodyChecks: BenchReport["baselineBodies"] = [];
  const started: Partial<Record<ServerKind, ChildServer>> = {};
  // Each phase on a server started for it. The uncached reads first, then the cached ones and, right
  // after them, the groups of routes measured in turns (the read path against its baselines; the cache
  // miss against the uncached list); the routes that change content come last, after every read.
  const groups = groupsInTurns(scenarios);
  const inGroups = new Set(groups.flat());
  const reads = scenarios.filter((s) => !s.changesData && !inGroups.has(s));
  const ofKind = (kind: ServerKind, from: Scenario[]) => from.filter((s) => s.server === kind);
  const phases: { kind: ServerKind | "turns"; profileDir: string; own: Scenario[] }[] = [
    { kind: "baseline", profileDir: "baseline", own: ofKind("baseline", reads) },
    { kind: "service", profileDir: "service", own: ofKind("service", reads) },
    { kind: "cached", profileDir: "cached", own: ofKind("cached", reads) },
    { kind: "turns", profileDir: "turns", own: groups.flat() },
    { kind: "prerendered", profileDir: "prerendered", own: ofKind("prerendered", reads) },
    ...(["baseline", "service", "cached"] as const).map((kind) => ({
      kind,
      profileDir: `${kind}-writes`,
      own: ofKind(
        kind,
        scenarios.filter((s) => s.changesData),
      ),
    })),
  ];
  const serviceServers: ChildServer[] = [];
  /** Where each profile directory's server started (the summary skips its start-up). */
  const profiled = new Map<string, ChildServer>();
  for (const { kind, profileDir, own } of phases) {
    if (!own.length) continue;
    if (kind === "turns") {
      for (const group of groups)
        await measureGroupInTurns(group, path.join(profileRoot, `turns-${group[0]?.turns}`));
      continue;
    }
    if (kind === "prerendered") {
      const answers = own.flatMap((s) => serviceAnswers.get(s.sameBodyAs ?? "") ?? []);
      writeFileSync(prerenderedFile, JSON.stringify(answers));
    }
    const server = await startServer({
      name: kind,
      script: serverSetups[kind].script,
      env: serverSetups[kind].env,
      nodeArgs: cpuProf(path.join(profileRoot, profileDir)),
    });
    profiled.set(path.join(profileRoot, profileDir), server);
    started[kind] ??= server;
    if (kind === "service" || kind === "cached") serviceServers.push(server);
    try {
      for (const scenario of own) {
        if (!(await preflight(server, scenario))) continue;
        const lookupsBefore = kind === "cached" ? await cacheLookups(server.url) : null;
        loads.set(scenario.id, await measure(server, scenario, keys, load));
        if (lookupsBefore)
          cacheRatios.set(scenario.id, hitRatio(lookupsBefore, await cacheLookups(server.url)));
      }
    } finally {
      await server.stop();
      if (kind === "prerendered") rmSync(prerenderedFile, { force: true });
    }
  }

  /**
   * A route's first request, before it is measured: the baselines' bodies are kept, the service's are
   * compared with them and kept for the pre-rendered server. False when the route cannot be measured.
   */
  async function preflight(server: ChildServer, scenario: Scenario): Promise<boolean> {
    const answer = await preflightScenario(server, scenario, keys);
    if (scenario.server === "baseline" && scenario.sameBodyAs)
      baselineBodies.set(scenario.sameBodyAs, answer.body);
    if (scenario.server === "service") {
      rememberAnswer(serviceAnswers, scenario, keys, answer.text);
      if (baselineBodies.has(scenario.id)) {
        const difference = firstDifference(answer.body, baselineBodies.get(scenario.id));
        bodyChecks.push({ route: scenario.id, identical: difference === null, difference });
        if (difference)
          log(`  ! the baseline's body for ${scenario.id} differs from the service's: ${difference}`);
      }
    }
    if (answer.problem) problems.set(scenario.id, answer.problem);
    return !answer.problem;
  }

  /** A group's routes measured in turns (bench/load.ts runInTurns), on one server per server kind. */
  async function measureGroupInTurns(group: Scenario[], profileDir: string) {
    const kinds = [...new Set(group.map((s) => s.server))];
    const servers = new Map<ServerKind, ChildServer>();
    // The embedded store is one process's (a lock file): every server after the first gets a copy of
    // the data folder, made before any starts (no server has it open), so all answer from the same data.
    const copies: string[] = [];
    const envOf = (index: number, kind: ServerKind): Record<string, string> => {
      const env = serverSetups[kind].env;
      if (!options.embedded || index === 0 || !env.DATA_DIR) return env;
      const copy = mkdtempSync(path.join(os.tmpdir(), "content-bench-turns-"));
      cpSync(env.DATA_DIR, copy, { recursive: true });
      copies.push(copy);
      return { ...env, DATA_DIR: copy };
    };
    const envs = kinds.map((kind, index) => envOf(index, kind));
    try {
      for (const [index, kind] of kinds.entries()) {
        const dir = path.join(profileDir, kind);
        const server = await startServer({
          name: `${kind} (in turns)`,
          script: serverSetups[kind].script,
          env: envs[index]!,
          nodeArgs: cpuProf(dir),
        });
        profiled.set(dir, server);
        servers.set(kind, server);
        started[kind] ??= server;
        if (kind === "service" || kind === "cached") serviceServers.push(server);
      }
      // The baselines first: the service's bodies are compared with theirs.
      const ordered = [...group].sort(
        (a, b) => Number(b.server === "baseline") - Number(a.server === "baseline"),
      );
      const measured: Scenario[] = [];
      for (const scenario of ordered)
        if (await preflight(servers.get(scenario.server)!, scenario)) measured.push(scenario);
      if (measured.length < 2) return;
      const cachedServer = servers.get("cached");
      const lookupsBefore = cachedServer ? await cacheLookups(cachedServer.url) : null;
      log(`  in turns: ${measured.map((s) => s.id).join(" | ")} …`);
      const results = await runInTurns(
        measured.map((scenario) => {
          const server = servers.get(scenario.server)!;
          return { baseUrl: server.url, scenario, meters: metersOf(server), fillBytes: fillOf(scenario) };
        }),
        keys,
        { ...load, warmup: settings.turnsWarmup },
      );
      for (const [index, scenario] of measured.entries()) {
        loads.set(scenario.id, results[index]!);
        log(`    ${scenario.title}: ${summaryOf(results[index]!)}`);
      }
      const cachedRoute = measured.find((s) => s.server === "cached");
      if (lookupsBefore && cachedServer && cachedRoute)
        cacheRatios.set(cachedRoute.id, hitRatio(lookupsBefore, await cacheLookups(cachedServer.url)));
    } finally {
      for (const server of servers.values()) await server.stop();
      for (const copy of copies) rmSync(copy, { recursive: true, force: true });
    }
  }

  const service = started.service ?? started.cached;
  if (!service) throw new Error("no service route was selected");
  const serviceErrors = serviceServers.reduce((sum, server) => sum + server.errorLines(), 0);
  for (const server of serviceServers) {
    const output = server.stderrTail().trim();
    if (!output) continue;
    log(`Service (${server.name}) logged ${server.errorLines()} error line(s); last output:`);
    log(
      output
        .split("\n")
        .slice(-4)
        .map((line) => `  ${line.slice(0, 400)}`)
        .join("\n"),
    );
  }

  // The read path's servers when it was measured in turns (its profile is the one issue 18 reads), else
  // the servers of the uncached phase.
  const profileOf = (kind: ServerKind) => {
    const dir = [path.join(profileRoot, "turns-read-path", kind), path.join(profileRoot, kind)].find((d) =>
      profiled.has(d),
    );
    return dir ? summarizeIfPresent(dir, profiled.get(dir)!.startupMs) : null;
  };
  const profile: BenchReport["profile"] = options.profile
    ? { service: profileOf("service"), baseline: profileOf("baseline") }
    : null;

  // Each route is compared with its own yardstick, by default the baseline of issue 8 (GET /v1/posts?limit=10).
  const routes: RouteReport[] = scenarios.map((scenario) => {
    const result = loads.get(scenario.id) ?? null;
    const comparedWith = scenario.comparedWith ?? "baseline";
    const reference = loads.get(comparedWith)?.rps;
    return {
      id: scenario.id,
      title: scenario.title,
      server: scenario.server,
      load: result,
      comparedWith,
      ratio: result && reference ? result.rps / reference : null,
      ...(cacheRatios.has(scenario.id) ? { cacheHitRatio: cacheRatios.get(scenario.id) ?? null } : {}),
      statements: statements.byScenario[scenario.id] ?? null,
      ...(problems.has(scenario.id) ? { problem: problems.get(scenario.id) } : {}),
    };
  });
  const { fixtures: _fixtures, ...seedSummary } = seed;
  const report: BenchReport = {
    createdAt: new Date().toISOString(),
    mode: database.mode,
    machine: { ...machine, loadAverageAtEnd: os.loadavg().map((n) => Math.round(n * 100) / 100) },
    settings,
    database: database.location,
    seed: seedSummary,
    baselineBodies: bodyChecks,
    serviceErrorsLogged: serviceErrors,
    routes,
    profile,
  };

  if (!options.analyze && database.mode === "postgres") {
    const analysedAt = await postsAnalysedAt(database.env);
    log(
      `Statistics: "Post" ${analysedAt ? `analysed at ${analysedAt.toISOString()}` : "never analysed"} during the run`,
    );
  }
  log("");
  log(formatReport(report));
  const file = writeReport(report, options, path.join(PROJECT_ROOT, "bench", "results"));
  log("");
  log(`Written ${path.relative(process.cwd(), file)}`);
  if (problems.size) exitCode = 1;
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  if (options.keep) log(`Kept the database: ${database.location}`);
  else
    await database
      .drop()
      .catch((error: unknown) => log(`  ! could not drop the bench database: ${(error as Error).message}`));
}
if (exitCode === 0 && options.peers) exitCode = await runPeersStage();
process.exit(exitCode);

/**
 * The last stage (issue 39): PostGraphile 5 against the uncached read path, `bench/peers.ts` in a process
 * of its own with its own schema and the issue's content (2,000 posts), statistics as this run has them.
 * Skipped, and said so, where no Node 22+ is at hand for PostGraphile.
 */
async function runPeersStage(): Promise<number> {
  try {
    peerNode();
  } catch (error) {
    log(`\nPostGraphile stage skipped: ${(error as Error).message}`);
    return 0;
  }
  log("\nPostGraphile 5 against the uncached read path (bench/peers.ts):");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "bench/peers.ts", ...(options.analyze ? [] : ["--no-analyze"])],
    { cwd: PROJECT_ROOT, stdio: "inherit", env: { ...process.env, DATABASE_URL: options.databaseUrl } },
  );
  const [code] = (await once(child, "exit")) as [number | null];
  return code ?? 1;
}

/** The answer the service gave to a route's (single, static) request: what the pre-rendered server serves. */
function rememberAnswer(
  answers: Map<string, PrerenderedAnswer>,
  scenario: Scenario,
  keys: Record<Step["key"], string>,
  text: string,
): void {
  const step = scenario.steps[0];
  const rendered = step && scenario.steps.length === 1 ? renderStep(step, {}, 0) : null;
  if (!step || !rendered) return;
  answers.set(scenario.id, {
    key: keys[step.key],
    method: step.method,
    path: rendered.path,
    requestBody: rendered.body ?? null,
    body: text,
  });
}

function summarizeIfPresent(dir: string, startupMs: number): ProfileSummary | null {
  try {
    // The profile starts a little after the spawn; a second more keeps the start-up out for sure.
    return summarizeProfile(dir, { top: 30, skipMs: startupMs + 1_000 });
  } catch (error) {
    log(`  ! no CPU profile in ${dir}: ${(error as Error).message}`);
    return null;
  }
}

async function measure(
  server: ChildServer,
  scenario: Scenario,
  keys: Record<Step["key"], string>,
  settings: { duration: number; warmup: number; connections: number },
) {
  process.stdout.write(`  ${server.name}: ${scenario.title} … `);
  const result = await runLoad(server.url, scenario, keys, settings, metersOf(server));
  log(summaryOf(result));
  return result;
}

/** A route whose every request is stored (the cache miss) fills the cache once before it is measured. */
function fillOf(scenario: Scenario): number | undefined {
  return scenario.server === "cached" ? CACHE_MAX_BYTES : undefined;
}

function metersOf(server: ChildServer): CpuMeters {
  return {
    server: server.cpuMs,
    // Embedded mode: the database runs inside the server process, already counted there.
    database: options.embedded ? () => null : postgresCpuMs,
    loadGenerator: ownCpuMs,
  };
}

function summaryOf(result: LoadResult): string {
  const failures = result.unexpected + result.errors + result.timeouts;
  const cpu = result.cpuMsPerRequest === null ? "" : `, ${result.cpuMsPerRequest.toFixed(2)} CPU ms/req`;
  const db =
    result.databaseCpuMsPerRequest === null
      ? ""
      : ` (+ database ${result.databaseCpuMsPerRequest.toFixed(2)})`;
  return `${result.rps.toFixed(0)} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms${cpu}${db}${failures ? `, ${failures} failed` : ""}`;
}

/** The selected routes measured in turns, by group (a group needs two routes at least). */
function groupsInTurns(scenarios: Scenario[]): Scenario[][] {
  const groups = new Map<string, Scenario[]>();
  for (const scenario of scenarios) {
    if (!scenario.turns || scenario.changesData) continue;
    groups.set(scenario.turns, [...(groups.get(scenario.turns) ?? []), scenario]);
  }
  return [...groups.values()].filter((group) => group.length >= 2);
}
