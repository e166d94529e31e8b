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
  const requests = scenario.steps.map((step) => toAutocannonRequest(step, keys[step.key]));
  const run = (duration: number) =>
    autocannon({
      url: baseUrl,
      connections: settings.connections,
      duration,
      timeout: 30,
      title: scenario.id,
      requests,
    });
  // The warm-up is a run of its own (as autocannon's `warmup` option does it), so the server's CPU
  // time can be read between the two.
  if (settings.warmup > 0) await run(settings.warmup);
  const before = readMeters(meters);
  const result: AutocannonResult = await run(settings.duration);
  const after = readMeters(meters);
  const total = result.requests.total;
  const perRequest = (name: keyof CpuMeters) => {
    const [start, end] = [before[name], after[name]];
    return start !== null && end !== null && total > 0 ? (end - start) / total : null;
  };
  const seconds = result.duration;
  return {
    requests: total,
    seconds,
    rps: seconds > 0 ? total / seconds : 0,
    latencyMs: {
      p50: result.latency.p50,
      p97_5: result.latency.p97_5,
      p99: result.latency.p99,
      mean: result.latency.mean,
      max: result.latency.max,
    },
    cpuMsPerRequest: perRequest("server"),
    databaseCpuMsPerRequest: perRequest("database"),
    loadGeneratorCpuMsPerRequest: perRequest("loadGenerator"),
    bytesPerResponse: total > 0 ? Math.round(result.throughput.total / total) : 0,
    non2xx: result.non2xx,
    unexpected: unexpectedResponses(result, scenario),
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]),
    ),
  };
}

function unexpectedResponses(result: AutocannonResult, scenario: Scenario): number {
  const expected = new Set(scenario.steps.map((step) => String(step.expectStatus)));
  return Object.entries(result.statusCodeStats)
    .filter(([code]) => !expected.has(code))
    .reduce((sum, [, stats]) => sum + stats.count, 0);
}

function readMeters(meters: CpuMeters): Record<keyof CpuMeters, number | null> {
  return { server: meters.server(), database: meters.database(), loadGenerator: meters.loadGenerator() };
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
