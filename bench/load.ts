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
  bytesPerResponse: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

let sequence = 0;

export async function runLoad(
  baseUrl: string,
  scenario: Scenario,
  keys: Record<Step["key"], string>,
  settings: LoadSettings,
): Promise<LoadResult> {
  const requests = scenario.steps.map((step) => toAutocannonRequest(step, keys[step.key]));
  const result: AutocannonResult = await autocannon({
    url: baseUrl,
    connections: settings.connections,
    duration: settings.duration,
    timeout: 30,
    title: scenario.id,
    requests,
    ...(settings.warmup > 0 ? { warmup: { connections: settings.connections, duration: settings.warmup } } : {}),
  });
  const total = result.requests.total;
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
    bytesPerResponse: total > 0 ? Math.round(result.throughput.total / total) : 0,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  };
}

function toAutocannonRequest(step: Step, key: string): AutocannonRequest {
  const headers: Record<string, string> = { authorization: key, accept: "application/json" };
  if (step.body !== undefined) headers["content-type"] = "application/json";
  if (isStatic(step)) {
    const rendered = renderStep(step, {}, 0)!;
    return { method: step.method, path: rendered.path, headers, ...(rendered.body ? { body: rendered.body } : {}) };
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
