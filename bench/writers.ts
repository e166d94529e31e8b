// `npm run bench:writers` (issue 38): the response cache under a site's read mix while an editor writes.
// 2,000 published posts; 16 keep-alive connections; 70% single posts by slug with a Zipf(1) popularity
// over every slug, 30% list pages 1–20; a writer making 2 writes per second, one kind per scenario:
// draft saves of one unpublished post (an editor's autosave), edits of one published post, edits of
// random published posts — against reads only on the same service, and reads only with CACHE=off. Each
// writer scenario is one continuous read load in which the writer writes in alternate slices only
// (bench/writer-slices.ts): its ratio to reads only is the on slices' req/s over the off slices' of the
// same run. A control scenario holds the same slices and writes in none: its ratio is the run's noise.
// Prints req/s, the ratio to reads only and the hit ratio (the service's own cache lookup counters),
// and whether the issue's targets are met in this run.
//
//   npm run bench:writers                   PostgreSQL (DATABASE_URL or the local server), CACHE=memory
//   npm run bench:writers -- --embedded     embedded PGlite
//   --seconds N (default 10): measured seconds of reads only, and of each half (on, off) of a writer
//                  scenario   --warmup N (default 3)
//   --rounds N (default 6): reads only and each writer scenario once per round; req/s of the median
//                  round, and the median of the rounds' on/off ratios (every round's slices pooled, too)
//   --before DIR   the same scenarios, on the same database, with the service run from another checkout
//                  (e.g. the commit before issue 38's cache) — figures of both in one run
//   --only KINDS   only these writer scenarios (comma-separated: draft, one-post, random-posts, control),
//                  no CACHE=off
//   --node-args="…"  node flags for the cached service, e.g. --node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"
//   --output FILE  the cached service's output appended to FILE (with --node-args --trace-gc: its GC lines)
//   --threads      also print each scenario's CPU per read by thread (main thread, V8's helpers, libuv)
//                  and how busy the service's threads and this process (the load) were
//   --rate N       reads at N req/s in all instead of as fast as the service answers
//   --only cpu     a diagnostic scenario: CPU bursts of --burn-ms (default 12) in another process at the
//                  writes' moments, nothing written

import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import autocannon, { type AutocannonRequest } from "autocannon";
import { cacheLookups, hitRatio, METRICS_TOKEN } from "./cache-metrics.ts";
import type { BenchDatabase } from "./database.ts";
import { log } from "./log.ts";
import { patchOnce, patchTitle, publishedSlugs } from "./post-writes.ts";
import { type ChildServer, ownCpuMs, postgresCpuMs, startServer } from "./processes.ts";
import type { BenchFixtures } from "./seed.ts";
import { benchServiceEnv, withSeededDatabase } from "./seeded-service.ts";
import {
  nextWriteAt,
  SLICE_MS,
  SliceCounter,
  SliceCpuSampler,
  type SliceTotal,
  sliceOrderLabel,
} from "./writer-slices.ts";

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    rounds: { type: "string", default: "6" },
    before: { type: "string" },
    only: { type: "string" },
    "node-args": { type: "string" },
    rate: { type: "string" },
    "burn-ms": { type: "string", default: "12" },
    threads: { type: "boolean", default: false },
    output: { type: "string" },
  },
});
const CONNECTIONS = 16;
const WRITES_PER_SECOND = 2;
const LIST_PAGES = 20;
/** Draft saves measured one at a time with no reads: what each costs the service, on which threads. */
const SAVES_ALONE = 40;
/** The seeder makes every tenth post a draft: this many posts are 2,000 published ones. */
const SEEDED_POSTS = 2_223;

type WriterKind = "none" | "draft" | "one-post" | "random-posts" | "control" | "cpu";

/** The scenarios with a writer, each measured in slices with and without writes; "control" writes nothing. */
const WRITER_SCENARIOS: [string, WriterKind][] = [
  ["+ 2 draft saves/s (one unpublished post)", "draft"],
  ["+ 2 edits/s of one published post", "one-post"],
  ["+ 2 edits/s of random published posts", "random-posts"],
  ["control: reads only in a writer's slot", "control"],
];

/**
 * Diagnostic, run only when named in --only: in the on slices, at the writes' moments, another process
 * burns --burn-ms of CPU and nothing is written — what a write's CPU outside the serving thread (the
 * database's) costs the readers on this 2-core machine by itself.
 */
const DIAGNOSTIC_SCENARIOS: [string, WriterKind][] = [
  ["+ 2 CPU bursts/s in another process (no writes)", "cpu"],
];

interface Outcome {
  title: string;
  /** The scenario's writer (absent: CACHE=off). */
  kind?: WriterKind;
  /** Against reads only: the median over rounds of each round's on/off ratio (absent: against the reported reads only). */
  ratio?: number;
  /** The on/off ratio of every round's slices pooled, and each round's own (writer scenarios over several rounds). */
  rounds?: { pooled: number; each: number[] };
  /** A writer scenario's on and off slices (the off ones: reads only in the same run). */
  halves?: { on: SliceTotal; off: SliceTotal };
  /** CPU milliseconds per read of the service process and of PostgreSQL (writes included). */
  cpu: { service: number | null; database: number | null };
  rps: number;
  hitRatio: number | null;
  writes: number;
  failedWrites: number;
  non2xx: number;
}

await withSeededDatabase({ embedded: values.embedded, posts: SEEDED_POSTS, log }, async (seeded) => {
  if (values.before) {
    log(`Before: the service from ${values.before}`);
    report(await scenarios(seeded, values.before));
    log("");
    log("After: the service from this checkout");
  }
  report(await scenarios(seeded, undefined));
});

/** Every scenario on the seeded database, the service run from `checkout` (default: this one). */
async function scenarios(
  { fixtures, database }: { fixtures: BenchFixtures; database: BenchDatabase },
  checkout: string | undefined,
): Promise<Outcome[]> {
  const keys = { public: fixtures.publicKey, private: fixtures.privateKey };
  const start = (cache: string) =>
    startServer({
      name: `service-${cache}`,
      script: "src/server.ts",
      env: benchServiceEnv(database, values.embedded, { CACHE: cache, METRICS_TOKEN }),
      cwd: checkout,
      nodeArgs: cache === "off" ? [] : (values["node-args"]?.split(" ").filter(Boolean) ?? []),
      outputFile: cache === "off" ? undefined : values.output,
    });
  const outcomes: Outcome[] = [];
  const cached = await start("memory");
  try {
    const slugs = await publishedSlugs(cached.url, keys.public);
    const draftSlug = await aDraftSlug(cached.url, keys.private);
    log(`${slugs.length} published posts; the draft: ${draftSlug}`);
    const reads = readMix(slugs, keys.public);
    // Every path once first: the scenarios compare a filled cache's steady state, not its warming.
    await readEveryPath(cached.url, slugs, keys.public);
    await measureSavesAlone(cached, draftSlug, keys.private);
    const only = values.only?.split(",");
    const writerScenarios = only
      ? [...WRITER_SCENARIOS, ...DIAGNOSTIC_SCENARIOS].filter(([, kind]) => only.includes(kind))
      : WRITER_SCENARIOS;
    const burner = only?.includes("cpu") ? startBurner() : null;
    // Each round: reads only, then every writer scenario, each in one run of alternating slices with and
    // without writes (bench/writer-slices.ts: separate runs of the same load differ by up to 1.7× on this
    // machine, bench/README.md). The writer scenarios' order turns by one each round. The reported ratio
    // is the median of the rounds' on/off ratios: a few seconds in which the host slows everything (the
    // same reads costing the service a quarter more CPU, in on and off slices alike) move one round, and
    // pooled they would move the run by as much as the writer's whole cost. The pooled ratio is printed
    // beside it.
    const readsOnlyRuns: Outcome[] = [];
    const byScenario: Outcome[][] = writerScenarios.map(() => []);
    for (let round = 1; round <= Number(values.rounds); round++) {
      if (Number(values.rounds) > 1) log(` round ${round}`);
      readsOnlyRuns.push(await measure(cached, "reads only", reads, null));
      const turn = (round - 1) % Math.max(1, writerScenarios.length);
      for (const index of writerScenarios.map((_, index) => (index + turn) % writerScenarios.length)) {
        const [title, kind] = writerScenarios[index] as [string, WriterKind];
        const target = writeTarget(kind, slugs, draftSlug);
        const writer = {
          mirrored: round % 2 === 0,
          act:
            kind === "cpu" && burner
              ? () => burner.burn(Number(values["burn-ms"]))
              : target && (() => patchOnce(cached.url, keys.private, target)),
        };
        byScenario[index]?.push(await measure(cached, title, reads, writer));
      }
    }
    burner?.stop();
    const rps = readsOnlyRuns.map((run) => run.rps);
    log(
      `  reads only, ${readsOnlyRuns.length} runs: ${Math.min(...rps).toFixed(0)}–${Math.max(...rps).toFixed(0)} req/s`,
    );
    outcomes.push(
      { ...median(readsOnlyRuns), kind: "none", ratio: 1 },
      ...byScenario.map((runs, index) => {
        const each = runs.map((run) => run.ratio ?? 0);
        return {
          ...median(runs),
          kind: writerScenarios[index]?.[1] ?? "none",
          ratio: medianOf(each),
          rounds: { pooled: pooledRatio(runs), each },
        };
      }),
    );
  } finally {
    await cached.stop();
  }
  if (values.only) return outcomes;
  // After the cached service has stopped: the embedded store admits one process at a time.
  const uncached = await start("off");
  try {
    const slugs = await publishedSlugs(uncached.url, keys.public);
    outcomes.push(await measure(uncached, "CACHE=off, reads only", readMix(slugs, keys.public), null));
  } finally {
    await uncached.stop();
  }
  return outcomes;
}

/**
 * What one draft save costs the service by itself: SAVES_ALONE saves of the draft, one after another
 * with a pause between (after as many unmeasured, the write path's first runs), the service's CPU per
 * save from /proc, by thread, and the median latency. Set against the reads' CPU in the scenarios, it
 * says how much of a writer's drop is the write's own work.
 */
async function measureSavesAlone(server: ChildServer, draftSlug: string, privateKey: string): Promise<void> {
  const save = async (n: number) => {
    const started = performance.now();
    const res = await patchTitle(server.url, privateKey, draftSlug, `Saved alone (${n})`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`A draft save answered ${res.status}`);
    return performance.now() - started;
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
  for (let n = 0; n < SAVES_ALONE; n++) await save(n);
  await pause();
  const cpuBefore = server.cpuMs();
  const threadsBefore = server.threadCpuMs();
  const latencies: number[] = [];
  for (let n = 0; n < SAVES_ALONE; n++) {
    latencies.push(await save(n));
    await pause();
  }
  const cpuAfter = server.cpuMs();
  const perSave = (after: number, before: number) => ((after - before) / SAVES_ALONE).toFixed(1);
  const threads = [...server.threadCpuMs()]
    .map(([name, after]) => `${name} ${perSave(after, threadsBefore.get(name) ?? 0)} ms`)
    .join(", ");
  const total = cpuAfter === null || cpuBefore === null ? "–" : `${perSave(cpuAfter, cpuBefore)} ms`;
  log(
    `A draft save alone (${SAVES_ALONE}, one at a time): service CPU ${total} per save (${threads}), latency p50 ${medianOf(latencies).toFixed(1)} ms`,
  );
}

/** Reads every single post and list page of the mix once, CONNECTIONS at a time. */
async function readEveryPath(baseUrl: string, slugs: readonly string[], publicKey: string): Promise<void> {
  const paths = [
    ...slugs.map((slug) => `/v1/posts/${slug}`),
    ...Array.from({ length: LIST_PAGES }, (_, index) => `/v1/posts?page=${index + 1}`),
  ];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++];
      const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: publicKey } });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

async function aDraftSlug(baseUrl: string, privateKey: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/posts?limit=1&status=draft`, {
    headers: { authorization: privateKey },
  });
  const body = (await res.json()) as { posts: { slug: string }[] };
  const slug = body.posts[0]?.slug;
  if (!slug) throw new Error("The seeded workspace has no draft");
  return slug;
}

/**
 * The read mix as one autocannon request whose path is drawn per request: 70% a single post, the
 * slug drawn by Zipf(1) over a shuffled order (popularity unrelated to age), 30% a list page 1–20.
 */
function readMix(slugs: readonly string[], publicKey: string): AutocannonRequest {
  const byPopularity = [...slugs].sort(() => Math.random() - 0.5);
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= byPopularity.length; rank++) {
    total += 1 / rank;
    cumulative.push(total);
  }
  const zipfSlug = () => {
    const point = Math.random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] ?? 0) < point) low = middle + 1;
      else high = middle;
    }
    return byPopularity[low] ?? byPopularity[0];
  };
  return {
    method: "GET",
    headers: { authorization: publicKey },
    setupRequest: (request) => ({
      ...request,
      path:
        Math.random() < 0.7
          ? `/v1/posts/${zipfSlug()}`
          : `/v1/posts?page=${1 + Math.floor(Math.random() * LIST_PAGES)}`,
    }),
  };
}

/** The post each write of a scenario edits (drawn anew per write for random posts), or null: no writer. */
function writeTarget(kind: WriterKind, slugs: readonly string[], draftSlug: string): (() => string) | null {
  switch (kind) {
    case "none":
    case "control":
    case "cpu":
      return null;
    case "draft":
      return () => draftSlug;
    case "one-post": {
      const slug = slugs[Math.floor(slugs.length / 3)] ?? slugs[0] ?? "";
      return () => slug;
    }
    case "random-posts":
      return () => slugs[Math.floor(Math.random() * slugs.length)] ?? "";
  }
}

/**
 * One scenario: reads only (`writer` null), or a writer scenario in slices (bench/writer-slices.ts) whose
 * writer edits `writer.target()` in the on slices (null target: the control, which writes in none).
 * Both start with the warm-up seconds, unmeasured; a writer scenario's warm-up is sliced alike, so its
 * measured seconds see an editor who is already typing, as a site does.
 */
async function measure(
  server: ChildServer,
  title: string,
  reads: AutocannonRequest,
  writer: { act: (() => Promise<boolean>) | null; mirrored: boolean } | null,
): Promise<Outcome> {
  const warmupMs = Number(values.warmup) * 1_000;
  const seconds = Number(values.seconds) * (writer ? 2 : 1);
  const startedAt = performance.now();
  const measuredFrom = startedAt + warmupMs;
  const slices = new SliceCounter(measuredFrom, writer?.mirrored);
  const load = autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: (warmupMs + seconds * 1_000) / 1_000,
    requests: [reads],
    ...(values.rate ? { overallRate: Number(values.rate) } : {}),
  });
  load.on("response", () => slices.count());
  const writes = writer?.act ? startWriter(writer.act, measuredFrom, writer.mirrored) : null;
  const cpuBySlice =
    writer && values.threads
      ? new SliceCpuSampler(
          measuredFrom,
          Math.floor((seconds * 1_000) / SLICE_MS),
          () => cpuByWorker(server),
          writer.mirrored,
        )
      : null;
  // The readings at the end of the warm-up, taken on a timer while the load runs.
  const readings = new Promise<MeasuredStart>((resolve) =>
    setTimeout(
      async () => {
        const startReading = {
          lookups: await cacheLookups(server.url),
          cpu: { service: server.cpuMs(), database: postgresCpuMs() },
          threads: server.threadCpuMs(),
          loadCpu: process.cpuUsage(),
          wall: performance.now(),
          writes: writes?.counts() ?? { done: 0, failed: 0 },
        };
        mark(title, "measured from here", measuredFrom);
        resolve(startReading);
      },
      Math.max(0, measuredFrom - performance.now()),
    ),
  );
  const result = await load;
  cpuBySlice?.stop();
  const start = await readings;
  const wallMs = performance.now() - start.wall;
  mark(title, "measured to here");
  const loadCpu = process.cpuUsage(start.loadCpu);
  const threadsAfter = server.threadCpuMs();
  const cpuAfter = { service: server.cpuMs(), database: postgresCpuMs() };
  const writesAfter = writes ? await writes.stop() : { done: 0, failed: 0 };
  const lookupsAfter = await cacheLookups(server.url);
  const halves = slices.totals(seconds);
  // Reads answered in the measured seconds (autocannon's own total includes the warm-up's).
  const measuredReads = halves.on.responses + halves.off.responses;
  const perRead = (after: number | null, before: number | null) =>
    after === null || before === null || measuredReads === 0 ? null : (after - before) / measuredReads;
  const cpu = {
    service: perRead(cpuAfter.service, start.cpu.service),
    database: perRead(cpuAfter.database, start.cpu.database),
  };
  const writesDone = writesAfter.done - start.writes.done;
  const writesFailed = writesAfter.failed - start.writes.failed;
  const outcome: Outcome = {
    title,
    cpu,
    rps: writer ? halves.on.rps : measuredReads / (halves.on.seconds + halves.off.seconds),
    // A writer scenario's hit ratio counts every miss of the run against its on slices' lookups alone
    // (misses come from the writes), so it is never better than the on slices' own.
    hitRatio: writer
      ? onSlicesHitRatio(start.lookups, lookupsAfter, halves.on.responses / Math.max(1, measuredReads))
      : hitRatio(start.lookups, lookupsAfter),
    writes: writesDone,
    failedWrites: writesFailed,
    non2xx: result.non2xx,
    ...(writer ? { ratio: halves.off.rps > 0 ? halves.on.rps / halves.off.rps : 0, halves } : {}),
  };
  if (values.threads) {
    const busy = (name: string) =>
      `${((((threadsAfter.get(name) ?? 0) - (start.threads.get(name) ?? 0)) / wallMs) * 100).toFixed(1)}%`;
    const loadBusy = (((loadCpu.user + loadCpu.system) / 1000 / wallMs) * 100).toFixed(1);
    log(
      `    busy over the measured seconds: service main thread ${busy("main")}, its "node" threads ${busy("node")}, this process (the load) ${loadBusy}%`,
    );
    const threads = [...threadsAfter]
      .map(([name, after]) => [name, (after - (start.threads.get(name) ?? 0)) / measuredReads] as const)
      .filter(([, perReadMs]) => perReadMs > 0)
      .sort((a, b) => b[1] - a[1]);
    if (writer)
      log(
        `    req/s by slice (${sliceOrderLabel(writer.mirrored)}, …): ${slices
          .rates(seconds)
          .map((rate) => rate.toFixed(0))
          .join(" ")}`,
      );
    if (cpuBySlice) {
      const { on, off } = cpuBySlice.perSecond();
      const line = (half: Map<string, number>) =>
        [...half].map(([name, msPerSecond]) => `${name} ${msPerSecond.toFixed(0)}`).join(", ");
      log(`    CPU ms per second, on slices: ${line(on)}; off slices: ${line(off)}`);
    }
    log(
      `    CPU/read by thread: ${threads.map(([name, perReadMs]) => `${name} ${perReadMs.toFixed(4)} ms`).join(", ")}`,
    );
  }
  const sliced = writer
    ? ` (on ${halves.on.rps.toFixed(0)}, off ${halves.off.rps.toFixed(0)}: ${(outcome.ratio ?? 0).toFixed(3)}×)`
    : "";
  log(
    `  ${title}: ${outcome.rps.toFixed(0)} req/s${sliced}, hit ratio ${percent(outcome.hitRatio)}, ${writesDone} writes, CPU/read: service ${ms(cpu.service)}, PostgreSQL ${ms(cpu.database)}, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
  );
  return outcome;
}

/**
 * Cumulative CPU ms of whoever works in a read load: the service's main thread and its other threads,
 * this process (the load generator and the writer), and PostgreSQL's processes (left out on the embedded
 * store, whose database is one of the service's threads; the machine's server runs there all the same).
 */
function cpuByWorker(server: ChildServer): Map<string, number> {
  const main = server.threadCpuMs().get("main") ?? 0;
  const total = server.cpuMs();
  const database = values.embedded ? null : postgresCpuMs();
  return new Map([
    ["service main thread", main],
    ["service other threads", total === null ? 0 : total - main],
    ["load generator", ownCpuMs()],
    ...(database === null ? [] : [["PostgreSQL", database] as [string, number]]),
  ]);
}

interface MeasuredStart {
  lookups: Awaited<ReturnType<typeof cacheLookups>>;
  cpu: { service: number | null; database: number | null };
  threads: Map<string, number>;
  loadCpu: NodeJS.CpuUsage;
  wall: number;
  writes: { done: number; failed: number };
}

/** Hits ÷ lookups, every miss between the readings counted against the on slices' share of the lookups. */
function onSlicesHitRatio(
  before: Awaited<ReturnType<typeof cacheLookups>>,
  after: Awaited<ReturnType<typeof cacheLookups>>,
  onShare: number,
): number | null {
  if (!before || !after) return null;
  const lookups = (after.hits + after.misses - before.hits - before.misses) * onShare;
  return lookups > 0 ? Math.max(0, 1 - (after.misses - before.misses) / lookups) : null;
}

/**
 * Marks the measured seconds in the service's output (--output), on the monotonic clock in µs, which a
 * CPU profile's timestamps also use: now, or the moment `at` (performance.now()) stands for.
 */
function mark(title: string, text: string, at = performance.now()): void {
  if (!values.output) return;
  const monotonicUs = Number(process.hrtime.bigint() / 1000n) - Math.round((performance.now() - at) * 1_000);
  appendFileSync(values.output, `=== ${title}: ${text} at ${monotonicUs} µs\n`);
}

/** A process that burns CPU for the milliseconds it is sent, one burst at a time (the cpu scenario). */
function startBurner() {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `process.stdin.on("data", (data) => { for (const line of String(data).split("\\n")) { const end = performance.now() + Number(line || 0); while (performance.now() < end); } });`,
    ],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
  // Never what keeps the bench running; stopped after the rounds, and killed with the bench on a failure.
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  return {
    async burn(ms: number): Promise<boolean> {
      return child.stdin.write(`${ms}\n`);
    },
    stop: () => child.kill(),
  };
}

/**
 * Calls `act` (a write) at the on slices' fixed offsets (bench/writer-slices.ts), each write after
 * the previous returned, from now until stopped.
 */
function startWriter(act: () => Promise<boolean>, measuredFrom: number, mirrored: boolean) {
  let done = 0;
  let failed = 0;
  let running = true;
  let wake: (() => void) | null = null;
  let lastDue = Number.NEGATIVE_INFINITY;
  const loop = (async () => {
    while (running) {
      // Never the same moment twice: an act that returns at once (a CPU burst handed to another process)
      // would otherwise find its own moment still due.
      const due = nextWriteAt(
        Math.max(performance.now(), lastDue + 1),
        WRITES_PER_SECOND,
        measuredFrom,
        mirrored,
      );
      lastDue = due;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, due - performance.now()));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!running) break;
      if (await act()) done++;
      else failed++;
    }
  })();
  return {
    /** Writes so far. */
    counts: () => ({ done, failed }),
    async stop() {
      running = false;
      (wake as (() => void) | null)?.();
      await loop;
      return { done, failed };
    },
  };
}

/** The on slices' req/s over the off slices' of every round together (equal lengths, so each slice weighs alike). */
function pooledRatio(runs: readonly Outcome[]): number {
  const sum = (half: "on" | "off") =>
    runs.reduce(
      (total, run) => ({
        responses: total.responses + (run.halves?.[half].responses ?? 0),
        seconds: total.seconds + (run.halves?.[half].seconds ?? 0),
      }),
      { responses: 0, seconds: 0 },
    );
  const [on, off] = [sum("on"), sum("off")];
  return on.seconds > 0 && off.seconds > 0 && off.responses > 0
    ? on.responses / on.seconds / (off.responses / off.seconds)
    : 0;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The run with the median req/s (of an even count, the lower middle one). */
function median(runs: Outcome[]): Outcome {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor((sorted.length - 1) / 2)] as Outcome;
}

function ms(value: number | null): string {
  return value === null ? "–" : `${value.toFixed(3)} ms`;
}

function percent(ratio: number | null): string {
  return ratio === null ? "–" : `${(ratio * 100).toFixed(1)}%`;
}

/** The table, and each target of the issue checked against this run's reads-only figure. */
function report(outcomes: readonly Outcome[]): void {
  const readsOnly = outcomes.find((outcome) => outcome.kind === "none");
  if (!readsOnly) return;
  const ratio = (outcome: Outcome | undefined) =>
    outcome ? (outcome.ratio ?? outcome.rps / readsOnly.rps) : 0;
  log("");
  log(
    "| scenario | req/s | × reads only | pooled | each round | cache hit ratio | writes (failed) | CPU/read service + db |",
  );
  log("|---|---|---|---|---|---|---|---|");
  for (const outcome of outcomes)
    log(
      `| ${outcome.title} | ${outcome.rps.toFixed(0)} | ${ratio(outcome).toFixed(3)} | ${outcome.rounds?.pooled.toFixed(3) ?? ""} | ${outcome.rounds?.each.map((each) => each.toFixed(2)).join(" ") ?? ""} | ${percent(outcome.hitRatio)} | ${outcome.writes} (${outcome.failedWrites}) | ${ms(outcome.cpu.service)} + ${ms(outcome.cpu.database)} |`,
    );
  log("");
  log(
    "req/s: the median round's (a writer scenario's: its on slices'); × reads only: a writer scenario's on slices over its off slices, the median of the rounds' ratios (pooled: every round's slices together) — the rows' req/s come from different minutes of a machine whose speed drifts, the ratios do not",
  );
  const byKind = (kind: WriterKind) => outcomes.find((outcome) => outcome.kind === kind);
  const [draft, onePost, randomPosts] = [byKind("draft"), byKind("one-post"), byKind("random-posts")];
  const hitGap =
    draft?.hitRatio != null && readsOnly.hitRatio !== null
      ? (readsOnly.hitRatio - draft.hitRatio) * 100
      : 100;
  // A target whose scenario did not run (--only) is not judged.
  const targets: [string, boolean | undefined][] = [
    ["draft saves ≥ 0.95× reads only", draft && ratio(draft) >= 0.95],
    ["draft saves' hit ratio within 2 points of reads only", draft && hitGap <= 2],
    ["edits of random published posts ≥ 0.85×", randomPosts && ratio(randomPosts) >= 0.85],
    ["edits of one published post ≥ 0.85×", onePost && ratio(onePost) >= 0.85],
  ];
  log("");
  for (const [name, met] of targets)
    log(`${met === undefined ? "not run" : met ? "met    " : "MISSED "} ${name}`);
  const control = byKind("control");
  if (control)
    log(
      `(the control, a writer slot without writes, measured ${ratio(control).toFixed(2)}×: this run's own noise)`,
    );
  const non2xx = outcomes.reduce((total, outcome) => total + outcome.non2xx, 0);
  if (non2xx > 0) log(`! ${non2xx} non-2xx answers`);
}
