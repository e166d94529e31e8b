// The webhook dispatcher of one service instance: claims due deliveries with a lease, sends them, and
// records each attempt and what follows from it (success, the next retry, giving up, disabling an
// endpoint). Storage is given to it (DeliveryStore, src/content/webhook-deliveries.ts), so the rules of
// delivery here know nothing of SQL.
//
// When it works:
// - on `wake()`: the writer's in-process signal after a commit that queued deliveries, and on
//   PostgreSQL a NOTIFY sent by that commit (so writes made by other instances or the CLI wake it too);
// - on a timer set after every round to the next moment something is due — a scheduled retry, or the
//   end of a lease another instance holds (a crashed holder's deliveries are taken over then) — and
//   never later than `sweepMs`, the safety net for a missed notification.
// Several instances may run at once: a claim takes only deliveries no one holds (FOR UPDATE SKIP
// LOCKED, then a lease), so each delivery is sent by one instance at a time.
import { type DeliveryStatus, TEST_EVENT_TYPE } from "../domain/webhook-deliveries.ts";
import { type WebhookEvent, webhookBody } from "./payload.ts";
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttempt } from "./retry-schedule.ts";
import type { SendRequest, SendResult } from "./sender.ts";
import { signatureHeaders } from "./signing.ts";
import type { TargetPolicy } from "./target-safety.ts";

/** A delivery this instance holds until `leaseUntil`, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  url: string;
  /** The endpoint's active secrets, the current one first. */
  secrets: readonly [string, ...string[]];
  /** The event; null when it has left the change log (retention) before it could be sent. */
  event: WebhookEvent | null;
  /** Failed attempts since the delivery was last (re)started. */
  failedAttempts: number;
  /** The lease, also the token that proves this instance still holds the delivery when it records. */
  leaseUntil: Date;
}

export interface AttemptRecord {
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  attempt: AttemptRecord;
  status: DeliveryStatus;
  /** When `status` is retrying. */
  nextAttemptAt: Date | null;
  /** Whether the attempt counts as the endpoint's failure (for disabling an endpoint failing for days). */
  endpointFailed: boolean;
  /** Set when the attempt disables the endpoint at once (a 410 Gone). */
  disableEndpoint: string | null;
}

export interface DeliveryStore {
  /** Leases up to `limit` due deliveries for `leaseMs`. */
  claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt and its outcome; the status changes only if the lease is still this one. */
  record(outcome: AttemptOutcome, disableAfterFailingMs: number): Promise<void>;
  /** Gives claimed deliveries back unsent (shutdown). */
  release(deliveries: readonly ClaimedDelivery[]): Promise<void>;
  /** When the next delivery becomes due or claimable, or null when none waits. */
  nextDueAt(): Promise<Date | null>;
}

export interface DispatcherOptions {
  store: DeliveryStore;
  send: (request: SendRequest) => Promise<SendResult>;
  policy: TargetPolicy;
  /** Deadline of one attempt (connect, send, answer). */
  timeoutMs: number;
  retryScheduleMs?: readonly number[];
  /** Deliveries sent at once by this instance. */
  concurrency?: number;
  sweepMs?: number;
  /** An endpoint whose every attempt has failed for this long is disabled. */
  disableAfterFailingMs?: number;
  /** Called when the dispatcher's own work fails (a database error); delivery failures are recorded, not reported. */
  onError?: (message: string, error: unknown) => void;
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const DISPATCH_DEFAULTS = {
  concurrency: 16,
  sweepMs: 10_000,
  disableAfterFailingMs: 3 * DAY_MS,
};

export class WebhookDispatcher {
  private readonly options: Required<Omit<DispatcherOptions, "onError">> & Pick<DispatcherOptions, "onError">;
  private running: Promise<void> | null = null;
  private wokenWhileRunning = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly inFlight = new Set<ClaimedDelivery>();
  private readonly shutdown = new AbortController();

  constructor(options: DispatcherOptions) {
    this.options = {
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      ...DISPATCH_DEFAULTS,
      now: () => new Date(),
      ...options,
    };
  }

  /** A lease outlives an attempt's deadline with room for recording it. */
  private get leaseMs(): number {
    return this.options.timeoutMs * 3;
  }

  /** Looks for due deliveries now (again, once the current round ends, if one is running). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wokenWhileRunning = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.wokenWhileRunning) {
        this.wokenWhileRunning = false;
        this.wake();
      }
    });
  }

  /**
   * Stops claiming; attempts in flight may finish until `deadlineMs`, then they are cut short and their
   * deliveries released, so another instance (or the next start) sends them without waiting for a lease.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const running = this.running;
    if (!running) return;
    let timeout: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, deadlineMs);
    });
    await Promise.race([running, deadline]);
    clearTimeout(timeout);
    if (this.inFlight.size > 0) {
      this.shutdown.abort();
      await running;
    }
  }

  private async round(): Promise<void> {
    try {
      const batch = this.options.concurrency;
      for (;;) {
        const claimed = await this.options.store.claim(batch, this.leaseMs);
        if (claimed.length === 0) break;
        await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
        if (this.stopped || claimed.length < batch) break;
      }
    } catch (error) {
      this.options.onError?.("claiming webhook deliveries failed", error);
    }
    await this.scheduleNext();
  }

  private async scheduleNext(): Promise<void> {
    if (this.stopped) return;
    let wait = this.options.sweepMs;
    try {
      const due = await this.options.store.nextDueAt();
      if (due) wait = Math.min(wait, Math.max(0, due.getTime() - this.options.now().getTime()));
    } catch (error) {
      this.options.onError?.("reading the next due webhook delivery failed", error);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    this.inFlight.add(delivery);
    try {
      const attemptedAt = this.options.now();
      const result = delivery.event
        ? await this.options.send(this.requestFor(delivery, delivery.event, attemptedAt))
        : eventGone();
      if (result.aborted) {
        await this.options.store.release([delivery]);
        return;
      }
      const attempt: AttemptRecord = {
        attemptedAt,
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        error: result.error,
        responseBody: result.responseBody,
      };
      await this.options.store.record(
        this.outcomeOf(delivery, attempt, result),
        this.options.disableAfterFailingMs,
      );
    } catch (error) {
      // The lease runs out and another round (here or elsewhere) tries again: nothing is lost.
      this.options.onError?.("recording a webhook attempt failed", error);
    } finally {
      this.inFlight.delete(delivery);
    }
  }

  private requestFor(delivery: ClaimedDelivery, event: WebhookEvent, at: Date): SendRequest {
    const body = webhookBody(event);
    return {
      url: delivery.url,
      body,
      headers: signatureHeaders({
        eventId: event.id,
        eventType: event.type,
        deliveryId: delivery.id,
        timestamp: at,
        body,
        secrets: delivery.secrets,
      }),
      timeoutMs: this.options.timeoutMs,
      policy: this.options.policy,
      signal: this.shutdown.signal,
    };
  }

  /** What an attempt's result means for the delivery and its endpoint. */
  private outcomeOf(delivery: ClaimedDelivery, attempt: AttemptRecord, result: SendResult): AttemptOutcome {
    const base = { delivery, attempt, nextAttemptAt: null, disableEndpoint: null };
    const code = result.statusCode;
    if (code !== null && code >= 200 && code < 300)
      return { ...base, status: "succeeded", endpointFailed: false };
    if (!delivery.event) return { ...base, status: "failed", endpointFailed: false };
    if (code === 410 && delivery.event.type !== TEST_EVENT_TYPE)
      return {
        ...base,
        status: "failed",
        endpointFailed: true,
        disableEndpoint: `The receiver answered 410 Gone on ${attempt.attemptedAt.toISOString()}`,
      };
    const next = nextAttempt({
      attemptsMade: delivery.failedAttempts + 1,
      failedAt: this.options.now(),
      schedule: this.options.retryScheduleMs,
    });
    return next.kind === "retry"
      ? { ...base, status: "retrying", nextAttemptAt: next.at, endpointFailed: true }
      : { ...base, status: "failed", endpointFailed: true };
  }
}

function eventGone(): SendResult {
  return {
    statusCode: null,
    durationMs: 0,
    error: "The event left the change log (retention) before it could be delivered",
    responseBody: null,
    aborted: false,
  };
}
