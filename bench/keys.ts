// `npm run bench -- --keys` (issue 57, "Tests and figures"): the service before scoped keys (`--before`,
// default 8dde9c6, the last commit before issue 57's work) and this checkout, side by side in one run.
//
//   1. the before commit's tree in a temporary folder with its own Prisma client (commit-checkout.ts)
//   2. one database seeded by the before build's own code (its bench/seed.ts: workspace, keys of its
//      format, 10,000 posts), then copied whole; this build's migrations are applied to the copy and it
//      issues its own keys (new format) there: the same rows, each build on its own schema
//   3. the key resolver of each build in-process (build-side.ts, one process per build), in alternating
//      rounds: a remembered key (what each request pays) and a key looked up (once per key per 4 s)
//   4. rounds (--process-rounds) of new server processes (`src/server.ts` of each checkout,
//      NODE_ENV=production): before, after and after again (after′, the A/A control), loaded in turns
//      (runInTurns): cached reads with CACHE=memory (a REST list, one post by slug and a GraphQL list
//      with a private key: hits through the cached-read door; the GraphQL document is the before build's
//      own bench's, which both builds answer), then uncached reads with CACHE=off (the same three). New
//      processes each round, since two processes of identical code differed by up to 19% on a cached hit
//      while turns within one process moved 3–13%
//   5. per route and round: req/s and CPU per request of each process, after ÷ before and after′ ÷ after;
//      medians of rounds. A difference no larger than the control's distance from 1 is the machine's
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cacheLookups, hitRatio, METRICS_TOKEN } from "./cache-metrics.ts";
import { checkOutCommit } from "./commit-checkout.ts";
import { createDatabaseCopies } from "./database-copies.ts";
import { type LoadResult, runInTurns } from "./load.ts";
import { log } from "./log.ts";
import type { BenchOptions } from "./options.ts";
import { preflightScenario } from "./preflight.ts";
import { type ChildServer, ownCpuMs, PROJECT_ROOT, postgresCpuMs, startServer } from "./processes.ts";
import type { Scenario, ServerKind, Step } from "./scenarios.ts";
import { type CallFrame, selfTimeWithin } from "./summarize-profile.ts";

type Keys = Record<Step["key"], string>;
interface Build {
  name: "before" | "after";
  dir: string;
  env: Record<string, string>;
  keys: Keys;
}

/** Rounds of the in-process resolver measure, and calls per round. */
const RESOLVE_ROUNDS = 10;
const REMEMBERED_CALLS = 500_000;
const LOOKUP_CALLS = 300;
const CACHE_MAX_BYTES = 64 * 1024 * 1024;

export async function runKeysStage(options: BenchOptions): Promise<number> {
  const startedAt = Date.now();
  const lines: string[] = [];
  const say = (text: string) => {
    log(text);
    lines.push(text);
  };
  const load = os.loadavg().map((n) => n.toFixed(2));
  const before = checkOutCommit(options.before);
  const after = { dir: PROJECT_ROOT, commit: gitHead() };
  say(
    `npm run bench -- ${process.argv.slice(2).join(" ")} (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.versions.node}, ${os.cpus().length} CPUs, load average ${load.join(" ")} at the start)`,
  );
  say(
    `before: ${before.commit.slice(0, 7)} (${before.dir}); after: ${after.commit.slice(0, 7)} (this checkout)`,
  );
  const profileRoot = path.join(os.tmpdir(), `content-bench-keys-profiles-${process.pid}`);
  const databases = await createDatabaseCopies({
    embedded: options.embedded,
    databaseUrl: options.databaseUrl,
  });
  const sides: BuildProcess[] = [];
  const servers: ChildServer[] = [];
  let exitCode = 0;
  try {
    const beforeSide = forkBuild("before", before.dir);
    sides.push(beforeSide);
    const seeded = (await beforeSide.ask({
      command: "seed",
      env: databases.first,
      posts: options.posts,
    })) as {
      fixtures: { workspaceId: string; publicKey: string; privateKey: string; postSlug: string };
      seedMs: number;
    };
    say(
      `Database: ${databases.location}; ${options.posts} posts seeded by the before build in ${(seeded.seedMs / 1000).toFixed(1)} s (+ VACUUM ANALYZE), copied for the after build, which migrated its copy and issued its own keys`,
    );
    // The GraphQL list both builds answer: the document of the before build's own bench, which a client
    // of that build sends (this build's asks for fields added since, which the before build refuses).
    const graphqlDocument = (await beforeSide.ask({ command: "graphql-list-query" })) as string;
    const afterEnv = await databases.copy();
    const afterSide = forkBuild("after", after.dir);
    sides.push(afterSide);
    const afterKeys = (await afterSide.ask({
      command: "issue-keys",
      env: afterEnv,
      workspaceId: seeded.fixtures.workspaceId,
    })) as Keys;
    const builds: Build[] = [
      {
        name: "before",
        dir: before.dir,
        env: databases.first,
        keys: { public: seeded.fixtures.publicKey, private: seeded.fixtures.privateKey },
      },
      { name: "after", dir: after.dir, env: afterEnv, keys: afterKeys },
    ];
    say(
      `Keys: before ${builds[0]!.keys.private.length} characters (${builds[0]!.keys.private.slice(0, 3)}…), after ${afterKeys.private.length} (${afterKeys.private.slice(0, 3)}…, checksummed)`,
    );

    say("");
    say(
      `The key resolver in-process (each build's createSharedCallers, as its server makes it), ${RESOLVE_ROUNDS} alternating rounds; median of rounds:`,
    );
    await Promise.all(sides.map((side, index) => side.ask({ command: "open", env: builds[index]!.env })));
    const rounds: ResolveRound[][] = [[], []];
    for (let round = 0; round < RESOLVE_ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order)
        rounds[index]!.push(
          (await sides[index]!.ask({
            command: "resolve",
            key: builds[index]!.keys.private,
            remembered: REMEMBERED_CALLS,
            lookups: LOOKUP_CALLS,
          })) as ResolveRound,
        );
    }
    for (const side of sides) await side.ask({ command: "close" });
    for (const side of sides.splice(0)) await side.stop();
    say(resolveTable(builds, rounds));

    const settings = {
      duration: options.duration,
      warmup: options.turnsWarmup,
      connections: options.connections,
    };
    say("");
    say(
      `Load: ${options.processRounds} rounds per group, each with new server processes: before, after, and after again (after′, the control: what two processes of identical code differ by); ${settings.connections} connections, ${settings.warmup} s warm-up per server and route, then ${settings.duration} s each in turns of 2 s; private keys`,
    );
    const groups: { cache: "memory" | "off"; routes: Scenario[] }[] = [
      {
        cache: "memory",
        routes: [
          restList("cached"),
          restPost("cached", seeded.fixtures.postSlug),
          graphqlList("cached", graphqlDocument),
        ],
      },
      {
        cache: "off",
        routes: [
          restList("service"),
          restPost("service", seeded.fixtures.postSlug),
          graphqlList("service", graphqlDocument),
        ],
      },
    ];
    if (options.profile)
      say(
        "With --profile: the first round's before and after servers run under --cpu-prof, which costs CPU; take throughput from runs without.",
      );
    // The control runs the after build: after′ ÷ after is the run's own process-to-process noise.
    const contenders: Contender[] = [
      { label: "before", build: builds[0]! },
      { label: "after", build: builds[1]! },
      { label: "after′", build: builds[1]! },
    ];
    for (const group of groups) {
      const rounds = new Map<string, RoundFigures[]>(group.routes.map((route) => [route.id, []]));
      for (let round = 0; round < options.processRounds; round++) {
        const profiled = options.profile && round === 0;
        const profileDirs = contenders.map((c) => path.join(profileRoot, `${group.cache}-${c.build.name}`));
        // Start and turn order mirrored every other round, so neither build always goes first.
        const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
        const started = await Promise.all(
          order.map((index) =>
            startServer({
              name: `${contenders[index]!.label} (CACHE=${group.cache}, round ${round + 1})`,
              script: "src/server.ts",
              cwd: contenders[index]!.build.dir,
              env: serviceEnv(contenders[index]!.build.env, group.cache, options.serviceAnalyze),
              nodeArgs: profiled && index < 2 ? ["--cpu-prof", "--cpu-prof-dir", profileDirs[index]!] : [],
            }),
          ),
        );
        servers.push(...started);
        const cpuPerRequest: (number | null)[][] = [[], []];
        try {
          for (const route of group.routes) {
            const result = await measureContenders(
              route,
              order.map((index) => contenders[index]!),
              started,
              settings,
              options.embedded,
            );
            if (!result) {
              exitCode = 1;
              continue;
            }
            // Back in contender order: before, after, after′.
            const byContender = [0, 1, 2].map((contender) => result[order.indexOf(contender)]!);
            rounds.get(route.id)!.push(byContender);
            for (const index of [0, 1]) cpuPerRequest[index]!.push(byContender[index]!.load.cpuMsPerRequest);
          }
        } finally {
          for (const server of started) await server.stop();
          servers.length = 0;
        }
        if (profiled)
          say(
            keyCodeShares(
              builds,
              [0, 1].map((index) => started[order.indexOf(index)]!),
              profileDirs,
              cpuPerRequest,
            ),
          );
      }
      for (const route of group.routes) {
        say("");
        say(`${route.title} (CACHE=${group.cache})`);
        say(roundsTable(contenders, rounds.get(route.id)!));
      }
    }
    say("");
    say(
      `Load average at the end ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`,
    );
  } catch (error) {
    process.stderr.write(`bench --keys failed: ${(error as Error).stack ?? String(error)}\n`);
    exitCode = 1;
  } finally {
    for (const server of servers) await server.stop();
    for (const side of sides) await side.stop();
    await databases
      .drop()
      .catch((error: unknown) => log(`  ! could not drop the databases: ${(error as Error).message}`));
    before.remove();
    rmSync(profileRoot, { recursive: true, force: true });
  }
  const file =
    options.out ??
    path.join(PROJECT_ROOT, "bench", "results", `${new Date().toISOString().slice(0, 10)}-keys.txt`);
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, `${lines.join("\n")}\n\n`);
  log(`\nAppended to ${path.relative(process.cwd(), file)}`);
  return exitCode;
}

function serviceEnv(database: Record<string, string>, cache: "memory" | "off", analyze: boolean) {
  return {
    ...database,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    RATE_LIMIT_AUTHENTICATED: "1000000000",
    RATE_LIMIT_UNAUTHENTICATED: "1000000000",
    METRICS_TOKEN,
    CACHE: cache,
    ...(cache === "memory" ? { CACHE_MAX_BYTES: String(CACHE_MAX_BYTES) } : {}),
    ...(analyze ? {} : { DATABASE_ANALYZE_INTERVAL_MS: "0" }),
  };
}

/** One route of the stage as a scenario of one step, with a private key. */
function keysRoute(
  server: ServerKind,
  name: string,
  title: string,
  step: Partial<Step> & Pick<Step, "path">,
): Scenario {
  return {
    id: `keys-${server}-${name}`,
    title,
    server,
    steps: [{ label: title, method: "GET", key: "private", expectStatus: 200, ...step }],
  };
}

function restList(server: ServerKind): Scenario {
  return keysRoute(server, "list10", "GET /v1/posts?limit=10", { path: "/v1/posts?limit=10" });
}

function restPost(server: ServerKind, slug: string): Scenario {
  return keysRoute(server, "post", "GET /v1/posts/{slug}", { path: `/v1/posts/${slug}` });
}

function graphqlList(server: ServerKind, query: string): Scenario {
  return keysRoute(server, "graphql", "POST /graphql posts(limit: 10)", {
    method: "POST",
    path: "/graphql",
    body: { query, variables: { limit: 10 } },
  });
}

interface Contender {
  label: "before" | "after" | "after′";
  build: Build;
}

/** One contender's figures in one round of one route. */
interface ContenderFigures {
  load: LoadResult;
  hitRatio: number | null;
}
/** A round's figures of one route: before, after, after′. */
type RoundFigures = ContenderFigures[];

/** One route on every contender's server, in turns; null (and said why) when any cannot answer it. */
async function measureContenders(
  route: Scenario,
  contenders: Contender[],
  servers: ChildServer[],
  settings: { duration: number; warmup: number; connections: number },
  embedded: boolean,
): Promise<ContenderFigures[] | null> {
  for (const [index, server] of servers.entries()) {
    const answer = await preflightScenario(server, route, contenders[index]!.build.keys);
    const problem =
      answer.problem ??
      ((answer.body as { errors?: unknown } | null)?.errors
        ? `GraphQL errors: ${answer.text.slice(0, 300)}`
        : null);
    if (problem) {
      log(`  ! ${contenders[index]!.label}: ${route.title}: ${problem}`);
      return null;
    }
  }
  const lookupsBefore = await Promise.all(servers.map((server) => cacheLookups(server.url)));
  const loads = await runInTurns(
    servers.map((server, index) => ({
      baseUrl: server.url,
      scenario: route,
      keys: contenders[index]!.build.keys,
      meters: {
        server: server.cpuMs,
        // Embedded: the database runs inside the server process, already counted there.
        database: embedded ? () => null : postgresCpuMs,
        loadGenerator: ownCpuMs,
      },
    })),
    contenders[0]!.build.keys,
    settings,
  );
  return Promise.all(
    servers.map(async (server, index) => {
      const before = lookupsBefore[index];
      return {
        load: loads[index]!,
        hitRatio: before ? hitRatio(before, await cacheLookups(server.url)) : null,
      };
    }),
  );
}

const fixed = (n: number | null | undefined, digits: number) =>
  n === null || n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits);
/** The middle value, or the mean of the two middle ones (a run of few rounds has an even count). */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? sorted[middle]!
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};
const range = (values: number[]) =>
  values.length ? `${fixed(Math.min(...values), 3)}–${fixed(Math.max(...values), 3)}` : "–";

/**
 * Per round: each process's req/s and server CPU per request, after ÷ before and the control's after′ ÷
 * after; then the medians of rounds. A difference between builds counts only where it is larger than the
 * control's distance from 1 in the same run.
 */
function roundsTable(contenders: Contender[], rounds: RoundFigures[]): string {
  const rps = (round: RoundFigures, index: number) => round[index]!.load.rps;
  const cpu = (round: RoundFigures, index: number) => round[index]!.load.cpuMsPerRequest ?? Number.NaN;
  // PostgreSQL's CPU in the same turns (all its processes: only one contender runs at a time).
  const dbCpu = (round: RoundFigures, index: number) =>
    round[index]!.load.databaseCpuMsPerRequest ?? Number.NaN;
  const labels = contenders.map((c) => c.label).join(" / ");
  const rows = [
    `round  ${contenders.map((c) => `${c.label} req/s`.padStart(14)).join(" ")}  after÷before  after′÷after  CPU µs/req ${labels}  PostgreSQL µs/req ${labels}  hits  failed`,
    ...rounds.map((round, index) => {
      const failed = round.reduce(
        (sum, figures) => sum + figures.load.unexpected + figures.load.errors + figures.load.timeouts,
        0,
      );
      const hits = round.map((figures) =>
        figures.hitRatio === null ? "–" : `${(figures.hitRatio * 100).toFixed(0)}%`,
      );
      return [
        String(index + 1).padEnd(5),
        ...round.map((_, i) => fixed(rps(round, i), 0).padStart(14)),
        fixed(rps(round, 1) / rps(round, 0), 3).padStart(13),
        fixed(rps(round, 2) / rps(round, 1), 3).padStart(13),
        `  ${round.map((_, i) => fixed(cpu(round, i) * 1000, 0)).join(" / ")}`.padEnd(34),
        `  ${round.map((_, i) => fixed(dbCpu(round, i) * 1000, 0)).join(" / ")}`.padEnd(33),
        hits.join("/").padStart(5),
        String(failed).padStart(7),
      ].join(" ");
    }),
  ];
  const ratios = (f: (round: RoundFigures) => number) => rounds.map(f).filter((n) => Number.isFinite(n));
  const afterRps = ratios((round) => rps(round, 1) / rps(round, 0));
  const controlRps = ratios((round) => rps(round, 2) / rps(round, 1));
  const afterCpu = ratios((round) => cpu(round, 1) / cpu(round, 0));
  const controlCpu = ratios((round) => cpu(round, 2) / cpu(round, 1));
  const afterDbCpu = ratios((round) => dbCpu(round, 1) / dbCpu(round, 0));
  const controlDbCpu = ratios((round) => dbCpu(round, 2) / dbCpu(round, 1));
  rows.push(
    `median of rounds, req/s: after ÷ before ${fixed(median(afterRps), 3)} (rounds ${range(afterRps)}); control after′ ÷ after ${fixed(median(controlRps), 3)} (rounds ${range(controlRps)})`,
    `median of rounds, server CPU per request: after ÷ before ${fixed(median(afterCpu), 3)} (rounds ${range(afterCpu)}); control ${fixed(median(controlCpu), 3)} (rounds ${range(controlCpu)})`,
    `median of rounds, PostgreSQL CPU per request: after ÷ before ${fixed(median(afterDbCpu), 3)} (rounds ${range(afterDbCpu)}); control ${fixed(median(controlDbCpu), 3)} (rounds ${range(controlDbCpu)})`,
  );
  return rows.join("\n");
}

/** The key check's code in either build: resolving, constraints, scopes, the key-bound CORS answer. */
function isKeyCode(frame: CallFrame): boolean {
  return (
    frame.url.includes("/src/auth/") ||
    frame.url.endsWith("/src/http/request-caller.ts") ||
    frame.url.endsWith("/src/graphql/execution/scope-rules.ts") ||
    frame.functionName === "bindCorsToKeyOrigins"
  );
}

/** Each build's share of busy main-thread samples inside the key check, and what it comes to per request. */
function keyCodeShares(
  builds: Build[],
  servers: ChildServer[],
  profileDirs: string[],
  cpuPerRequest: (number | null)[][],
): string {
  const rows = builds.map((build, index) => {
    try {
      const { busyMs, withinMs } = selfTimeWithin(profileDirs[index]!, isKeyCode, {
        skipMs: servers[index]!.startupMs + 1_000,
      });
      const share = busyMs > 0 ? withinMs / busyMs : 0;
      const perRoute = cpuPerRequest[index]!.map((cpu) =>
        cpu === null ? "–" : `${(share * cpu * 1000).toFixed(1)} µs`,
      );
      return `  ${build.name}: ${(share * 100).toFixed(2)}% of ${(busyMs / 1000).toFixed(1)} s busy (≈ ${perRoute.join(", ")} per request of the routes above)`;
    } catch (error) {
      return `  ${build.name}: no profile (${(error as Error).message})`;
    }
  });
  return [
    "",
    "Key check in the CPU profiles (src/auth/, request-caller.ts, scope-rules.ts, bindCorsToKeyOrigins: their self time and the Node built-ins they call):",
    ...rows,
  ].join("\n");
}

interface ResolveRound {
  rememberedNs: number;
  rememberedCpuNs: number;
  lookupNs: number;
  lookupCpuNs: number;
}

function resolveTable(builds: Build[], rounds: ResolveRound[][]): string {
  const pick = (index: number, field: keyof ResolveRound) =>
    median(rounds[index]!.map((round) => round[field]));
  return [
    "build    remembered key: ns/call (CPU ns)   looked up: µs/call (CPU µs)   rounds (remembered ns)",
    ...builds.map((build, index) =>
      [
        build.name.padEnd(6),
        `${fixed(pick(index, "rememberedNs"), 0).padStart(21)} (${fixed(pick(index, "rememberedCpuNs"), 0)})`.padEnd(
          36,
        ),
        `${fixed(pick(index, "lookupNs") / 1000, 1).padStart(20)} (${fixed(pick(index, "lookupCpuNs") / 1000, 1)})`.padEnd(
          30,
        ),
        rounds[index]!.map((round) => round.rememberedNs.toFixed(0)).join(" "),
      ].join(" "),
    ),
    `Remembered: ${REMEMBERED_CALLS.toLocaleString("en-US")} calls of resolve(key, { address }) on an entry read before the loop; looked up: ${LOOKUP_CALLS} calls, the entry forgotten before each (a SELECT of the key's row by hash).`,
  ].join("\n");
}

interface BuildProcess {
  ask(message: Record<string, unknown>): Promise<unknown>;
  stop(): Promise<void>;
}

/** A process running bench/build-side.ts on a build's checkout. */
function forkBuild(name: string, dir: string): BuildProcess {
  const child: ChildProcess = fork(path.join(PROJECT_ROOT, "bench", "build-side.ts"), [dir], {
    cwd: PROJECT_ROOT,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = once(child, "exit");
  return {
    ask(message) {
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) =>
          reject(new Error(`${name}: build-side.ts exited with ${code}`));
        child.once("exit", onExit);
        child.once("message", (answer: { ok: boolean; value?: unknown; error?: string }) => {
          child.off("exit", onExit);
          if (answer.ok) resolve(answer.value);
          else reject(new Error(`${name}: ${answer.error}`));
        });
        child.send(message);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function gitHead(): string {
  return execFileSync("git", ["rev-parse", "HEAD"], { cwd: PROJECT_ROOT, encoding: "utf8" }).trim();
}
