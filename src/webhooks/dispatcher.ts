// The webhook dispatcher of one service instance: claims due deliveries with a lease, sends them, and
// records each attempt and what follows from it (success, the next retry, giving up, disabling an
// endpoint). Storage is given to it (DeliveryStore, src/content/deliveries/webhook-deliveries.ts), so the rules of
// delivery here know nothing of SQL.
//
// When it works:
// - on `wake()`: the writer's in-process signal after a commit that queued deliveries, and on
//   PostgreSQL a NOTIFY sent by that commit (so writes made by other instances or the CLI wake it too).
//   A wake claims at once unless a round started within `coalesceMs`; then it waits for the rest of
//   that time, so a stream of writes costs one claim round per `coalesceMs`, not one per write;
// - on a timer set after every round to the next moment something is due — a scheduled retry, or the
//   end of a lease another instance holds (a crashed holder's deliveries are taken over then) — and
//   never later than `sweepMs`, the safety net for a missed notification.
// Up to `concurrency` attempts are in flight; each frees its slot when it ends, so a slow receiver
// holds one slot, not the others' deliveries. Finished attempts are recorded together, one statement
// for all that ended within `recordBatchMs` of the first. Several instances may run at once: a claim
// takes only deliveries no one holds (FOR UPDATE SKIP LOCKED, then a lease), so each delivery is sent
// by one instance at a time.
//
// Fairness (issue 36): one workspace's receivers that never answer must not take every slot and leave
// another workspace's events waiting behind their timeouts. A claim takes no more than
// `endpointConcurrency` deliveries in flight per endpoint and `workspaceConcurrency` per workspace,
// counted over every instance (the leases in the database); an endpoint failing since its last success
// is sent one delivery at a time, and only after a back-off that grows with its failures in a row
// (the retry schedule's waits), during which its deliveries wait in the database, holding no slot. One
// that has failed every attempt for `disableAfterFailingMs` is disabled (the store records
// `webhook.disabled`). Deliveries held back by a cap are claimed when a slot frees: after this
// instance records attempts, or when another instance's lease runs out.
import { setMaxListeners } from "node:events";
import { type DeliveryStatus, TEST_EVENT_TYPE } from "../domain/webhook-deliveries.ts";
import type { OutgoingEvent } from "./payload.ts";
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
  /** The event, serialized; null when it has left the change log (retention) before it could be sent. */
  event: OutgoingEvent | null;
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

/** Deliveries in flight at once, over every instance. */
export interface DeliveryCaps {
  /** Per endpoint (a failing endpoint: 1). */
  endpoint: number;
  /** Per workspace, all its endpoints together. */
  workspace: number;
}

export interface ClaimResult {
  deliveries: ClaimedDelivery[];
  /** When the first delivery not claimed (nor held back by a cap) becomes due or claimable; null: none. */
  nextDueAt: Date | null;
  /** Due deliveries were left because of a cap (or another instance's claim): claim again when slots free. */
  waitingForSlots: boolean;
}

export interface EndpointHealthRules {
  /** An endpoint that has failed every attempt since this moment or before is disabled. */
  failingCutoff: Date;
  /** A failing endpoint's back-off after its 1st, 2nd, … failure in a row (the last repeats). */
  backoffMs: readonly number[];
}

export interface DeliveryStore {
  /** Leases up to `limit` due deliveries for `leaseMs`, within `caps`. */
  claim(limit: number, leaseMs: number, caps: DeliveryCaps): Promise<ClaimResult>;
  /**
   * Records attempts and their outcomes; a delivery's status changes only if it still holds the lease
   * that was claimed, and an attempt whose delivery is gone (its endpoint deleted) is dropped. Each
   * endpoint's health follows: a success clears its failing streak and back-off, a failure backs it off
   * (`rules.backoffMs`), and one failing since `rules.failingCutoff` (or answering 410) is disabled.
   */
  record(outcomes: readonly AttemptOutcome[], rules: EndpointHealthRules): Promise<void>;
  /** Gives claimed deliveries back unsent (shutdown). */
  release(deliveries: readonly ClaimedDelivery[]): Promise<void>;
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
  /** Deliveries in flight at once to one endpoint, over every instance (a failing one: 1). */
  endpointConcurrency?: number;
  /** Deliveries in flight at once for one workspace, over every instance. */
  workspaceConcurrency?: number;
  sweepMs?: number;
  /** Wakes this close together make one claim. */
  coalesceMs?: number;
  /** Attempts ending this close together are recorded in one statement. */
  recordBatchMs?: number;
  /** An endpoint whose every attempt has failed for this long is disabled (WEBHOOK_DISABLE_AFTER). */
  disableAfterFailingMs?: number;
  /** Called when the dispatcher's own work fails (a database error); delivery failures are recorded, not reported. */
  onError?: (message: string, error: unknown) => void;
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const DISPATCH_DEFAULTS = {
  // Room for one claim round's worth of deliveries under a stream of writes (100 a second for 200 ms is
  // 20): a round that fills every free slot asks for the next at once, and with 16 slots rounds of a few
  // deliveries followed each other back to back, for as long as the stream lasted.
  concurrency: 64,
  // 16 was the keep-alive agent's sockets per host (sender.ts; it has no cap since issue 53: the caps
  // here are the only ones). Half an instance's slots per workspace leaves the other half to the rest.
  endpointConcurrency: 16,
  workspaceConcurrency: 32,
  sweepMs: 10_000,
  // Measured with `npm run bench:webhooks -- --rounds 3` (4 writers, one endpoint subscribed to every
  // event): a claim round at most every 20 ms with each attempt recorded at once cost writes 17-25% of
  // their throughput (events arriving 12 ms after the write's answer, p50); every 100 ms with records
  // batched over 20 ms, 11-12% (46 ms); every 200 ms, 6.6% (100 ms, p99 200 ms). A lone write's
  // delivery still goes out at once (wake()). (Those runs had rounds back to back whenever a wake came
  // during a claim, about 16 a second; now 5, see ask(). Costs since: docs/webhooks.md, "Receiving webhooks".)
  coalesceMs: 200,
  recordBatchMs: 20,
  // Stripe and Svix disable an endpoint that keeps failing (after a few days); issue 36 asked for a
  // day, still longer than the default retry schedule (≈22 h): a receiver down overnight is not
  // disabled. WEBHOOK_DISABLE_AFTER changes it.
  disableAfterFailingMs: DAY_MS,
};

export class WebhookDispatcher {
  private readonly options: Required<Omit<DispatcherOptions, "onError">> & Pick<DispatcherOptions, "onError">;
  private stopped = false;
  /**
   * A claim round is running; `askedWhileClaiming` says what asked for another meanwhile: a wake (the
   * next round keeps to `coalesceMs`) or something due now (a freed slot, a retry's time).
   */
  private claiming: Promise<void> | null = null;
  private askedWhileClaiming: "wake" | "now" | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly inFlight = new Set<Promise<void>>();
  /** The last claim filled every free slot: more may be due as soon as a slot frees. */
  private claimedFull = false;
  /** The last claim left due deliveries to a cap: more may be claimable once attempts are recorded. */
  private waitingForSlots = false;
  private readonly toRecord: AttemptOutcome[] = [];
  private recordTimer: NodeJS.Timeout | null = null;
  /** When the last claim round started (Date.now()). */
  private lastClaimAt = 0;
  private recording: Promise<void> | null = null;
  private readonly shutdown = new AbortController();

  constructor(options: DispatcherOptions) {
    this.options = {
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      ...DISPATCH_DEFAULTS,
      now: () => new Date(),
      ...options,
    };
    // Every attempt in flight listens for the shutdown: up to `concurrency` listeners, not a leak.
    setMaxListeners(this.options.concurrency + 1, this.shutdown.signal);
  }

  /** A lease outlives an attempt's deadline with room for recording it. */
  private get leaseMs(): number {
    return this.options.timeoutMs * 3;
  }

  /**
   * Looks for due deliveries: at once when no claim round started within `coalesceMs`, else when that
   * much time has passed since the last one (after the running claim, if one is). A lone write's
   * delivery goes out at once; under a stream of writes, one claim round takes what came meanwhile.
   */
  wake(): void {
    this.ask("wake");
  }

  /**
   * Stops claiming; attempts in flight may finish until `deadlineMs`, then they are cut short and their
   * deliveries released, so another instance (or the next start) sends them without waiting for a lease.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming;
    let timeout: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, deadlineMs);
    });
    await Promise.race([Promise.all(this.inFlight), deadline]);
    clearTimeout(timeout);
    if (this.inFlight.size > 0) {
      this.shutdown.abort();
      await Promise.all(this.inFlight);
    }
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    await this.flushRecords();
  }

  /**
   * Schedules a claim round: for a wake, `coalesceMs` after the last round started (at once if that is
   * past); for "now", at once. While a round runs, the next is asked for when it ends. A wake must not
   * start a round right after the running one: under a stream of writes nearly every round is woken
   * while it runs, and rounds would follow each other back to back (measured: 16 a second instead of 5).
   */
  private ask(kind: "wake" | "now"): void {
    if (this.stopped) return;
    if (this.claiming) {
      if (this.askedWhileClaiming !== "now") this.askedWhileClaiming = kind;
      return;
    }
    this.setTimer(kind === "now" ? 0 : Math.max(0, this.lastClaimAt + this.options.coalesceMs - Date.now()));
  }

  /** The claim round's own timer: the earlier of the one set and `ms` from now. */
  private setTimer(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.claimRound();
    }, ms);
    this.timer.unref();
  }

  private claimRound(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.askedWhileClaiming = "now";
      return;
    }
    this.claiming = this.claim().finally(() => {
      this.claiming = null;
      const asked = this.askedWhileClaiming;
      this.askedWhileClaiming = null;
      if (asked) this.ask(asked);
    });
  }

  private async claim(): Promise<void> {
    this.lastClaimAt = Date.now();
    const free = this.options.concurrency - this.inFlight.size;
    // Every slot is busy: the next attempt to end wakes a round.
    if (free <= 0) return;
    let claimed: ClaimedDelivery[] = [];
    let wait = this.options.sweepMs;
    try {
      const result = await this.options.store.claim(free, this.leaseMs, {
        endpoint: this.options.endpointConcurrency,
        workspace: this.options.workspaceConcurrency,
      });
      claimed = result.deliveries;
      this.waitingForSlots = result.waitingForSlots;
      if (result.nextDueAt)
        wait = Math.min(wait, Math.max(0, result.nextDueAt.getTime() - this.options.now().getTime()));
    } catch (error) {
      this.options.onError?.("claiming webhook deliveries failed", error);
    }
    for (const delivery of claimed) this.start(delivery);
    // A full claim may have left more due: claim again when a slot frees (start() sees to it).
    this.claimedFull = claimed.length === free;
    if (!this.claimedFull) this.setTimer(wait);
  }

  private start(delivery: ClaimedDelivery): void {
    const attempt = this.deliver(delivery).finally(() => {
      this.inFlight.delete(attempt);
      if (this.claimedFull) this.ask("now");
    });
    this.inFlight.add(attempt);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
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
      this.toRecord.push(this.outcomeOf(delivery, attempt, result));
      this.scheduleRecording();
    } catch (error) {
      // The lease runs out and another round (here or elsewhere) tries again: nothing is lost.
      this.options.onError?.("releasing a webhook delivery failed", error);
    }
  }

  /**
   * Records finished attempts `recordBatchMs` after the first of them ended, together: one statement
   * for all that end meanwhile. The delivery keeps its lease until then, so no one sends it again; the
   * attempt's slot is free at once.
   */
  private scheduleRecording(): void {
    if (this.recordTimer) return;
    this.recordTimer = setTimeout(() => {
      this.recordTimer = null;
      void this.flushRecords();
    }, this.options.recordBatchMs);
    this.recordTimer.unref();
  }

  /** Records every finished attempt not recorded yet, in one call; concurrent callers share it. */
  private async flushRecords(): Promise<void> {
    while (this.recording) await this.recording;
    if (this.toRecord.length === 0) return;
    const batch = this.toRecord.splice(0);
    const rules = {
      failingCutoff: new Date(this.options.now().getTime() - this.options.disableAfterFailingMs),
      backoffMs: this.options.retryScheduleMs,
    };
    this.recording = this.options.store.record(batch, rules).then(
      () => {
        this.recording = null;
        // The attempts just recorded freed their endpoints' and workspaces' slots.
        if (this.waitingForSlots) this.ask("now");
        // The retries just scheduled: the claim's timer was set before they existed.
        for (const { nextAttemptAt } of batch)
          if (nextAttemptAt)
            this.setTimer(Math.max(0, nextAttemptAt.getTime() - this.options.now().getTime()));
      },
      (error: unknown) => {
        this.recording = null;
        // The leases run out and the deliveries are tried again: at least once, never lost.
        this.options.onError?.("recording webhook attempts failed", error);
      },
    );
    await this.recording;
  }

  private requestFor(delivery: ClaimedDelivery, event: OutgoingEvent, at: Date): SendRequest {
    const body = event.body;
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
