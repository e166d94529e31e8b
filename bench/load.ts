// Drives one scenario with autocannon: fixed concurrency over keep-alive connections, an unmeasured
// warm-up, then the measured run. Runs in the bench process; the servers under test are child processes.
import autocannon, { type AutocannonRequest, type AutocannonResult } from "autocannon";
import { isStatic, renderStep, type Scenario, type Step, type StepContext } from "./scenarios.ts";

export interface LoadSettings {
  duration: number;
  warmup: number;
  connections: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Completed responses per second over the measured run (all statuses). */
  rps: number;
  latencyMs: { p50: number; p97_5: number; p99: number; mean: number; max: number };
  /**
   * CPU time the server process used per response during the measured run (user + system, all its
   * threads). Far less sensitive to a busy machine than req/s; null where it cannot be read.
   */
  cpuMsPerRequest: number | null;
  /** The same for the database server's processes (PostgreSQL on this machine); null otherwise. */
  databaseCpuMsPerRequest: number | null;
  /** The same for the load generator (the bench process). */
  loadGeneratorCpuMsPerRequest: number | null;
  bytesPerResponse: number;
  non2xx: number;
  /** Responses whose status is none of the scenario's expected ones (a 304 may be expected). */
  unexpected: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Measured in turns with another route (runInTurns): how many slices this route's figures add up. */
  turns?: number;
  /**
   * Measured in turns: each turn's own req/s and server CPU per response, in order, so a comparison
   * can set its difference against the turn-to-turn spread of the same run.
   */
  turnFigures?: { rps: number; cpuMsPerRequest: number | null }[];
}

let sequence = 0;

/** Readers of accumulated CPU time (ms) of the processes taking part in a run. */
export interface CpuMeters {
  server: () => number | null;
  database: () => number | null;
  loadGenerator: () => number | null;
}

export async function runLoad(
  baseUrl: string,
  scenario: Scenario,
  keys: Record<Step["key"], string>,
  settings: LoadSettings,
  meters: CpuMeters,
): Promise<LoadResult> {
  const contender = { baseUrl, scenario, meters, requests: autocannonRequests(scenario, keys) };
  // The warm-up is a run of its own (as autocannon's `warmup` option does it), so the server's CPU
  // time can be read between the two.
  if (settings.warmup > 0) await loadRun(contender, settings.connections, { duration: settings.warmup });
  const slice = await measuredSlice(contender, settings.connections, { duration: settings.duration });
  return toLoadResult([slice], scenario);
}

/** One side of a measurement in turns: a route and the server that answers it. */
export interface TurnContender {
  baseUrl: string;
  scenario: Scenario;
  meters: CpuMeters;
  /**
   * Bytes of answers to have the route store before measuring (a cache miss: the response cache's
   * size). A new process's cache pays the page faults of its memory once, on its first round; a
   * running service's misses write over memory it holds already, which is what the miss costs.
   */
  fillBytes?: number;
  /** This side's keys, where the sides do not share them (two builds, each with keys of its own format). */
  keys?: Record<Step["key"], string>;
  /**
   * Called before and after each of its measured turns (not the warm-up), outside the CPU readings: a
   * bench reads the server's /metrics there to count per turn what only the server knows.
   */
  beforeTurn?: () => Promise<void>;
  afterTurn?: () => Promise<void>;
}

/** Seconds of one turn: long enough that starting a run is noise, short enough that the machine cannot drift within it. */
const TURN_SECONDS = 2;

/**
 * Routes measured in turns for `settings.duration` seconds each: on this shared machine the same build
 * runs 10–20% faster or slower from one minute to the next, so routes compared minutes apart measure the
 * machine as much as the routes; taken in turns of two seconds, all meet the same machine. The order
 * runs forwards, then backwards (A B C C B A A B C …), so no route always follows the same one. Each turn
 * is a fixed number of responses (two seconds at the route's own warm-up rate), so no turn ends with
 * requests abandoned in flight whose work would spill into the next one. Only one route is loaded at a
 * time, as in every other measurement; routes may share a server (its CPU is read per turn).
 */
export async function runInTurns(
  contenders: TurnContender[],
  keys: Record<Step["key"], string>,
  settings: LoadSettings,
): Promise<LoadResult[]> {
  const sides = contenders.map((c) => ({ ...c, requests: autocannonRequests(c.scenario, c.keys ?? keys) }));
  const amounts: number[] = [];
  for (const side of sides) {
    const warmup = await loadRun(side, settings.connections, { duration: Math.max(settings.warmup, 1) });
    const perResponse = warmup.requests.total > 0 ? warmup.throughput.total / warmup.requests.total : 0;
    if (side.fillBytes && perResponse > 0) {
      const amount = Math.max(settings.connections, Math.ceil(side.fillBytes / perResponse));
      await loadRun(side, settings.connections, { amount });
    }
    const rate = warmup.duration > 0 ? warmup.requests.total / warmup.duration : 0;
    amounts.push(Math.max(settings.connections * 10, Math.round(rate * TURN_SECONDS)));
  }
  const turns = Math.max(2, Math.round(settings.duration / TURN_SECONDS));
  const slices: MeasuredSlice[][] = sides.map(() => []);
  const forwards = sides.map((_, index) => index);
  for (let turn = 0; turn < turns; turn++) {
    const order = turn % 2 === 0 ? forwards : [...forwards].reverse();
    for (const index of order) {
      const side = sides[index]!;
      await side.beforeTurn?.();
      slices[index]!.push(await measuredSlice(side, settings.connections, { amount: amounts[index]! }));
      await side.afterTurn?.();
    }
  }
  return contenders.map((contender, index) => toLoadResult(slices[index]!, contender.scenario));
}

interface MeasuredSlice {
  result: AutocannonResult;
  /** CPU ms each meter read during the slice (null where it cannot be read). */
  cpuMs: Record<keyof CpuMeters, number | null>;
}

function loadRun(
  contender: { baseUrl: string; scenario: Scenario; requests: AutocannonRequest[] },
  connections: number,
  until: { duration: number } | { amount: number },
) {
  return autocannon({
    url: contender.baseUrl,
    connections,
    ...until,
    timeout: 30,
    title: contender.scenario.id,
    requests: contender.requests,
  });
}

async function measuredSlice(
  contender: { baseUrl: string; scenario: Scenario; requests: AutocannonRequest[]; meters: CpuMeters },
  connections: number,
  until: { duration: number } | { amount: number },
): Promise<MeasuredSlice> {
  const before = readMeters(contender.meters);
  const startedAt = performance.now();
  let lastResponseAt = startedAt;
  const run = loadRun(contender, connections, until);
  run.on("response", () => {
    lastResponseAt = performance.now();
  });
  const result = await run;
  const after = readMeters(contender.meters);
  // autocannon ends a run on its once-a-second tick, so the duration it reports for a run of `amount`
  // responses is rounded up to whole seconds: the slice lasts until its last response.
  if ("amount" in until) result.duration = (lastResponseAt - startedAt) / 1000;
  const used = (name: keyof CpuMeters) => {
    const [start, end] = [before[name], after[name]];
    return start !== null && end !== null ? end - start : null;
  };
  return {
    result,
    cpuMs: { server: used("server"), database: used("database"), loadGenerator: used("loadGenerator") },
  };
}

/**
 * The slices of one route as one result. With several slices (turns) the latency percentiles are the
 * slices' percentiles averaged by their responses, and the maximum the largest: autocannon hands out
 * each run's summary, not its histogram.
 */
function toLoadResult(slices: MeasuredSlice[], scenario: Scenario): LoadResult {
  const total = slices.reduce((sum, s) => sum + s.result.requests.total, 0);
  const seconds = slices.reduce((sum, s) => sum + s.result.duration, 0);
  const perRequest = (name: keyof CpuMeters) => {
    if (total === 0 || slices.some((s) => s.cpuMs[name] === null)) return null;
    return slices.reduce((sum, s) => sum + (s.cpuMs[name] ?? 0), 0) / total;
  };
  const weighted = (pick: (latency: AutocannonResult["latency"]) => number) =>
    total > 0
      ? slices.reduce((sum, s) => sum + pick(s.result.latency) * s.result.requests.total, 0) / total
      : 0;
  const single = slices.length === 1;
  const sum = (pick: (result: AutocannonResult) => number) =>
    slices.reduce((acc, s) => acc + pick(s.result), 0);
  const statusCodes: Record<string, number> = {};
  for (const { result } of slices)
    for (const [code, stats] of Object.entries(result.statusCodeStats))
      statusCodes[code] = (statusCodes[code] ?? 0) + stats.count;
  const expected = new Set(scenario.steps.map((step) => String(step.expectStatus)));
  const round = (n: number) => (single ? n : Math.round(n * 100) / 100);
  return {
    requests: total,
    seconds,
    rps: seconds > 0 ? total / seconds : 0,
    latencyMs: {
      p50: round(weighted((l) => l.p50)),
      p97_5: round(weighted((l) => l.p97_5)),
      p99: round(weighted((l) => l.p99)),
      mean: round(weighted((l) => l.mean)),
      max: Math.max(...slices.map((s) => s.result.latency.max)),
    },
    cpuMsPerRequest: perRequest("server"),
    databaseCpuMsPerRequest: perRequest("database"),
    loadGeneratorCpuMsPerRequest: perRequest("loadGenerator"),
    bytesPerResponse: total > 0 ? Math.round(sum((r) => r.throughput.total) / total) : 0,
    non2xx: sum((r) => r.non2xx),
    unexpected: Object.entries(statusCodes)
      .filter(([code]) => !expected.has(code))
      .reduce((acc, [, count]) => acc + count, 0),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    ...(single
      ? {}
      : {
          turns: slices.length,
          turnFigures: slices.map(({ result, cpuMs }) => ({
            rps: result.duration > 0 ? result.requests.total / result.duration : 0,
            cpuMsPerRequest:
              cpuMs.server !== null && result.requests.total > 0
                ? cpuMs.server / result.requests.total
                : null,
          })),
        }),
  };
}

function readMeters(meters: CpuMeters): Record<keyof CpuMeters, number | null> {
  return { server: meters.server(), database: meters.database(), loadGenerator: meters.loadGenerator() };
}

function autocannonRequests(scenario: Scenario, keys: Record<Step["key"], string>): AutocannonRequest[] {
  return scenario.steps.map((step) => toAutocannonRequest(step, keys[step.key]));
}

function toAutocannonRequest(step: Step, key: string): AutocannonRequest {
  const headers: Record<string, string> = { authorization: key, accept: "application/json", ...step.headers };
  if (step.body !== undefined || step.makeBody) headers["content-type"] = "application/json";
  if (isStatic(step)) {
    const rendered = renderStep(step, {}, 0)!;
    return {
      method: step.method,
      path: rendered.path,
      headers,
      ...(rendered.body ? { body: rendered.body } : {}),
    };
  }
  const request: AutocannonRequest = {
    method: step.method,
    headers,
    setupRequest: (base, context) => {
      const rendered = renderStep(step, context as StepContext, sequence++);
      if (!rendered) return null;
      return { ...base, path: rendered.path, ...(rendered.body ? { body: rendered.body } : {}) };
    },
  };
  const capture = step.capture;
  if (capture) {
    request.onResponse = (status, body, context) => {
      if (status !== step.expectStatus) {
        delete context.postId;
        return;
      }
      try {
        capture(JSON.parse(body), context as StepContext);
      } catch {
        delete context.postId;
      }
    };
  }
  return request;
}
