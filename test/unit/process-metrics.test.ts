// The process metrics behind GET /metrics (prom-client's defaults): the event-loop delay is sampled
// every 100 ms, not prom-client's 10 ms (which woke an idle server 100 times a second), and a stall of
// the loop still shows in the delay's maximum.
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics.ts";

function gauge(text: string, name: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  if (!line) throw new Error(`${name} is not in the metrics`);
  return Number(line.slice(name.length + 1));
}

describe("process metrics", () => {
  it("serve Node's heap and event-loop figures, and a 400 ms stall shows in the delay's maximum", async () => {
    const { registry } = createMetrics({ processMetrics: true });
    // Let the sampler arm, then hold the loop.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const stalledUntil = Date.now() + 400;
    while (Date.now() < stalledUntil) {
      // busy: nothing else may run on the loop
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    const text = await registry.metrics();
    expect(gauge(text, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    // The sample due during the stall fires when it ends: at least 400 − 100 ms late.
    expect(gauge(text, "nodejs_eventloop_lag_max_seconds")).toBeGreaterThanOrEqual(0.29);
  });
});
