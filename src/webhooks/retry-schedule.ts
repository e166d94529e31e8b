// When a failed webhook delivery is tried again. The default waits grow from seconds to hours and add up
// to about a day (5 s + 30 s + 2 min + 10 min + 1 h + 3 h + 6 h + 12 h ≈ 22 h 13 min), like Stripe's
// and Svix's: a receiver that is down for a deploy gets the event within seconds of coming back, one
// that is down for the night still gets it in the morning. After the last wait's attempt fails, the
// delivery gives up (`failed`). Each wait is jittered by ±10% so that the deliveries of a burst of
// events that failed together (a receiver's outage) do not all come back at the same instant.
// WEBHOOK_RETRY_SCHEDULE replaces the waits (tests use "1s,2s"); src/config.ts parses it.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, … failed attempt, in milliseconds. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  1 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
];

/** How far a wait may stray from the schedule, as a fraction of it. */
export const RETRY_JITTER = 0.1;

export type NextAttempt = { kind: "retry"; at: Date } | { kind: "give-up" };

export interface NextAttemptInput {
  /** Attempts made so far, the one that just failed included (1 after the first failure). */
  attemptsMade: number;
  /** When the attempt that just failed finished. */
  failedAt: Date;
  schedule?: readonly number[];
  /** A number in [0, 1): Math.random unless a test fixes it. */
  random?: () => number;
}

/**
 * When to try again after `attemptsMade` failed attempts, or "give-up" when the schedule is spent:
 * the first attempt and one retry per wait, so a schedule of n waits allows n + 1 attempts in all.
 */
export function nextAttempt({
  attemptsMade,
  failedAt,
  schedule = DEFAULT_RETRY_SCHEDULE_MS,
  random = Math.random,
}: NextAttemptInput): NextAttempt {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError("attemptsMade must be ≥ 1");
  const wait = schedule[attemptsMade - 1];
  if (wait === undefined) return { kind: "give-up" };
  // random() in [0, 1) → a factor in [0.9, 1.1).
  const jittered = wait * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random());
  return { kind: "retry", at: new Date(failedAt.getTime() + Math.round(jittered)) };
}
