// The publishing scheduler of one service instance: releases scheduled posts when they fall due
// (post-release.ts records their post.published event through the one writer, exactly once across
// instances). It does not poll every second: after each round it sleeps until the next due
// publishedAt, never longer than `sweepMs` (the safety net for a missed wake-up). A write that may
// have changed a publishedAt wakes it to re-arm the timer: this instance's commits through the
// writer's signal, other instances' through the change NOTIFY (both wired in src/bootstrap.ts).
// `start()` runs a round at once, so a restart after a due time publishes on start-up.
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { Change } from "../change.ts";
import { nextReleaseDue, RELEASE_BATCH, releaseDuePosts } from "./post-release.ts";

/** The safety sweep: a missed wake-up delays a due post by at most this. */
export const PUBLISH_SWEEP_MS = 60_000;

/**
 * Whether a committed change may have moved the next due time, so the scheduler must look again. A
 * post update that keeps every listing (Change.keepsListings: no status, publication date, featured,
 * category or tags given, and the post as public as before) neither scheduled, released nor
 * rescheduled anything: an editor's draft saves and title or body edits cost no read of the schedule.
 * Every other post change may have (a delete of a scheduled post only leaves the timer early: its round
 * finds nothing due and re-arms).
 */
export function mayMoveSchedule(change: Change): boolean {
  return change.resource === "post" && !(change.action === "updated" && change.keepsListings === true);
}

export interface PublishSchedulerOptions {
  prisma: PrismaClient;
  /** Longest sleep between rounds, whatever the next due time says. */
  sweepMs: number;
  onError: (message: string, error: unknown) => void;
  /** Told the ids of every round that released posts (tests, logs). */
  onReleased?: (postIds: readonly string[]) => void;
}

/** How soon a due post that another transaction held during the claim is tried again. */
const RETRY_HELD_MS = 50;

/** setTimeout's ceiling (about 24.8 days); a later due time is re-armed on the way. */
const MAX_TIMER_MS = 2_147_483_647;

export class PublishScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** A wake-up that arrived during a round: one more round follows it. */
  private again = false;
  private stopped = false;

  constructor(private readonly options: PublishSchedulerOptions) {}

  start(): void {
    this.wake();
  }

  /** Runs a round now (or right after the one running): releases what is due, re-arms the timer. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.clearTimer();
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        this.wake();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.running;
  }

  private async round(): Promise<void> {
    let delayMs = this.options.sweepMs;
    try {
      // Most wake-ups are writes that scheduled nothing: they cost this one read, no transaction.
      let nextDue = await nextReleaseDue(this.options.prisma);
      if (nextDue && nextDue.getTime() <= Date.now()) {
        let released: string[];
        do {
          released = await releaseDuePosts(this.options.prisma);
          if (released.length > 0) this.options.onReleased?.(released);
        } while (released.length >= RELEASE_BATCH && !this.stopped);
        nextDue = await nextReleaseDue(this.options.prisma);
      }
      // A due post another instance holds (or a write is saving) is looked at again shortly.
      if (nextDue) delayMs = Math.min(delayMs, Math.max(nextDue.getTime() - Date.now(), RETRY_HELD_MS));
    } catch (error) {
      this.options.onError("releasing scheduled posts failed", error);
    }
    this.arm(Math.min(delayMs, MAX_TIMER_MS));
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    this.clearTimer();
    this.timer = setTimeout(() => this.wake(), delayMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
