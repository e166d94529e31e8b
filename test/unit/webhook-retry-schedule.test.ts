import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttempt } from "../../src/webhooks/retry-schedule.ts";

const failedAt = new Date("2025-03-01T12:00:00.000Z");
const SECOND = 1_000;

/** Milliseconds from the failure to the next attempt, or "give-up". */
function waitAfter(attemptsMade: number, options: { schedule?: number[]; random?: () => number } = {}) {
  const next = nextAttempt({ attemptsMade, failedAt, random: () => 0.5, ...options });
  return next.kind === "retry" ? next.at.getTime() - failedAt.getTime() : next.kind;
}

describe("webhook retry schedule", () => {
  it("waits 5 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h, 12 h by default, then gives up", () => {
    const waits = Array.from({ length: 9 }, (_, index) => waitAfter(index + 1));
    expect(waits).toEqual([
      5 * SECOND,
      30 * SECOND,
      120 * SECOND,
      600 * SECOND,
      3_600 * SECOND,
      3 * 3_600 * SECOND,
      6 * 3_600 * SECOND,
      12 * 3_600 * SECOND,
      "give-up",
    ]);
    // About a day of retries in all.
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    expect(total / 3_600_000).toBeGreaterThan(22);
    expect(total / 3_600_000).toBeLessThan(24);
  });

  it("jitters each wait by at most ±10%", () => {
    expect(waitAfter(2, { random: () => 0 })).toBe(27 * SECOND);
    expect(waitAfter(2, { random: () => 0.999_999 })).toBeCloseTo(33 * SECOND, -1);
    const waits = Array.from({ length: 500 }, () => waitAfter(5, { random: Math.random }) as number);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(0.9 * 3_600 * SECOND);
      expect(wait).toBeLessThan(1.1 * 3_600 * SECOND);
    }
    // Spread, not one value: a burst of failures does not come back at one instant.
    expect(new Set(waits).size).toBeGreaterThan(400);
  });

  it("follows a configured schedule and gives up when it is spent", () => {
    const schedule = [1 * SECOND, 2 * SECOND];
    expect(waitAfter(1, { schedule })).toBe(1 * SECOND);
    expect(waitAfter(2, { schedule })).toBe(2 * SECOND);
    expect(waitAfter(3, { schedule })).toBe("give-up");
    expect(waitAfter(1, { schedule: [] })).toBe("give-up");
  });

  it("refuses a count of attempts below one", () => {
    expect(() => nextAttempt({ attemptsMade: 0, failedAt })).toThrow(RangeError);
  });
});

describe("WEBHOOK_RETRY_SCHEDULE", () => {
  it("is unset by default (the default schedule applies)", () => {
    expect(loadConfig({}).webhooks.retryScheduleMs).toBeUndefined();
  });

  it("reads a comma list of durations in ms, s, m or h", () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: "1s,2s" }).webhooks.retryScheduleMs).toEqual([1_000, 2_000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: "250ms, 5m ,2h" }).webhooks.retryScheduleMs).toEqual([
      250, 300_000, 7_200_000,
    ]);
  });

  it.each(["1", "1s,", "1d", "-1s", "1.5s", "0s,1s", "fast"])(
    "refuses %j at start, naming the variable",
    (value) => {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: value })).toThrow(ConfigError);
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: value })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    },
  );
});

describe("WEBHOOK_ALLOW_PRIVATE_TARGETS", () => {
  it("is off unless set to true", () => {
    expect(loadConfig({}).webhooks.allowPrivateTargets).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }).webhooks.allowPrivateTargets).toBe(true);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "maybe" })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS/,
    );
  });
});
