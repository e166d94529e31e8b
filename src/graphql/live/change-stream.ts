// Live changes for GraphQL subscriptions, read from the change log after commit — never from resolver
// calls — so a change made on another instance, by the CLI or by a scheduler reaches every subscriber.
//
// One reader per instance tails the log (all workspaces, in position order) and hands each event to
// the subscribers of its workspace. It reads when woken: by this instance's commits (the writer's
// signal) and, on PostgreSQL, by the NOTIFY every append sends (other processes' commits). It only
// reads while someone subscribes; the first subscriber starts it at the log's head.
//
// Bounded: each subscriber has a queue of at most `maxQueued` events. One that does not read (its
// connection stalls, so the SSE stream stops pulling) is ended once its queue is full, instead of being
// buffered forever. Open subscriptions are capped per key and per instance, so one key cannot hold an
// instance's memory and file descriptors.
//
// A subscription belongs to the key that opened it: when any process changes API keys (the writer's
// signal here, the keys' NOTIFY from others), the stream asks which of its keys no longer let anyone in
// and ends their subscriptions at once, so a revoked key stops receiving on every instance.
//
// A subscription the service ends (revoked key, too slow) yields one last item, a StreamEnd naming the
// reason, then completes: the client reads a final error event instead of a cut connection.
import type { KeyEnds } from "../../auth/key-ends.ts";
import type { Event } from "../../generated/prisma/client.ts";

export interface ChangeStreamSource {
  /** The newest position of the whole log now ("0" before any event). */
  head(): Promise<bigint>;
  /** Events after `position`, oldest first, at most `limit`. */
  after(position: bigint, limit: number): Promise<Event[]>;
  /** Starts hearing other processes' commits; returns the stop. */
  listen(onNotify: () => void): Promise<() => Promise<void>>;
  /** Starts hearing that any process changed API keys; returns the stop. */
  listenForKeyChanges(onChange: () => void): Promise<() => Promise<void>>;
  /**
   * Which of these keys let nobody in any more (revoked, gone with their workspace, past a rotation's
   * grace: revoked; past their expiry: expired), and the next moment one of the others stops.
   */
  keyEnds(keyIds: readonly string[]): Promise<KeyEnds>;
}

/** Why the service ended a subscription. */
export type StreamEndReason = "API_KEY_REVOKED" | "API_KEY_EXPIRED" | "SUBSCRIBER_TOO_SLOW";

/** The last item of a subscription the service ended: its resolver turns it into the final error. */
export interface StreamEnd {
  readonly endedBecause: StreamEndReason;
}

export type StreamItem = Event | StreamEnd;

export function isStreamEnd(item: StreamItem): item is StreamEnd {
  return "endedBecause" in item;
}

/** Who holds a subscription: its workspace, and the key it was opened with (capped and revocable). */
export interface SubscriptionOwner {
  workspaceId: string;
  keyId: string | null;
}

export interface ChangeStreamLimits {
  /** Changes a subscriber may leave unread before it is ended. */
  maxQueued: number;
  /** Open subscriptions of one key on this instance. */
  maxPerKey: number;
  /** Open subscriptions on this instance. */
  maxPerInstance: number;
}

/** A subscription past a cap: refused before it opens (429). */
export class TooManySubscriptionsError extends Error {
  override name = "TooManySubscriptionsError";
  constructor(
    readonly scope: "key" | "instance",
    readonly limit: number,
  ) {
    super(
      scope === "key"
        ? `This API key already has ${limit} open subscriptions on this instance; close one first`
        : `This instance already serves ${limit} subscriptions; try again later`,
    );
  }
}

export interface SubscribeOptions {
  /** Called once when the service ends the subscription (not when the client leaves or on shutdown). */
  onEndedByService?: (reason: StreamEndReason) => void;
}

/** Decides what a subscriber receives of an event: the event, a reduced copy, or nothing (null). */
export type ChangeFilter = (event: Event) => Event | null;

const PAGE = 500;

export class ChangeStream {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly perKey = new Map<string, number>();
  private count = 0;
  private position: bigint | null = null;
  private starting: Promise<void> | null = null;
  private reading: Promise<void> | null = null;
  private wokenWhileReading = false;
  private stopListening: (() => Promise<void>) | null = null;
  private stopHearingKeys: (() => Promise<void>) | null = null;
  private checkingKeys: Promise<void> | null = null;
  private keysChangedWhileChecking = false;
  private nextKeyCheck: { at: number; timer: NodeJS.Timeout } | null = null;
  private closed = false;
  private readonly limits: ChangeStreamLimits;

  constructor(
    private readonly source: ChangeStreamSource,
    limits: Partial<ChangeStreamLimits> = {},
    private readonly onError: (message: string, error: unknown) => void = () => {},
  ) {
    this.limits = { maxQueued: 100, maxPerKey: 20, maxPerInstance: 2_000, ...limits };
  }

  /**
   * Events of the owner's workspace from now on, as `filter` lets them through; ends when the caller
   * stops. Throws TooManySubscriptionsError past a cap.
   */
  async subscribe(
    owner: SubscriptionOwner,
    filter: ChangeFilter,
    options: SubscribeOptions = {},
  ): Promise<AsyncIterableIterator<StreamItem>> {
    if (this.closed) throw new Error("The service is shutting down");
    const keyCount = this.perKey.get(keyOf(owner)) ?? 0;
    if (keyCount >= this.limits.maxPerKey) throw new TooManySubscriptionsError("key", this.limits.maxPerKey);
    if (this.count >= this.limits.maxPerInstance)
      throw new TooManySubscriptionsError("instance", this.limits.maxPerInstance);
    // Counted before the first await, so a burst of subscribes cannot all pass the caps at once.
    this.perKey.set(keyOf(owner), keyCount + 1);
    this.count++;
    const subscriber = new Subscriber(owner, filter, this.limits.maxQueued, options.onEndedByService, () =>
      this.remove(subscriber),
    );
    const set = this.subscribers.get(owner.workspaceId) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.subscribers.set(owner.workspaceId, set);
    try {
      await this.start();
    } catch (error) {
      subscriber.end();
      throw error;
    }
    // The key was checked when the request arrived; a revocation that committed since then (and whose
    // check ran before this subscriber was listed) must still end it.
    if (owner.keyId) void this.endRevoked([owner.keyId]);
    return subscriber;
  }

  /** Any process changed API keys: ends the subscriptions of every key that lets nobody in any more. */
  keysChanged(): void {
    if (this.closed || this.count === 0) return;
    if (this.checkingKeys) {
      this.keysChangedWhileChecking = true;
      return;
    }
    this.checkingKeys = this.endRevoked(
      [...this.perKey.keys()].filter((key) => !key.startsWith(":")),
    ).finally(() => {
      this.checkingKeys = null;
      if (this.keysChangedWhileChecking) {
        this.keysChangedWhileChecking = false;
        this.keysChanged();
      }
    });
  }

  /** Reads what was appended since the last read (again after the running read, if one runs). */
  wake(): void {
    if (this.closed || this.count === 0 || this.position === null) return;
    if (this.reading) {
      this.wokenWhileReading = true;
      return;
    }
    this.reading = this.read().finally(() => {
      this.reading = null;
      if (this.wokenWhileReading) {
        this.wokenWhileReading = false;
        this.wake();
      }
    });
  }

  /** Ends every subscription (their streams complete) and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.nextKeyCheck) clearTimeout(this.nextKeyCheck.timer);
    for (const set of this.subscribers.values()) for (const subscriber of [...set]) subscriber.end();
    this.subscribers.clear();
    await this.stopListening?.();
    await this.stopHearingKeys?.();
  }

  get subscriberCount(): number {
    return this.count;
  }

  private async endRevoked(keyIds: readonly string[]): Promise<void> {
    if (keyIds.length === 0) return;
    let ends: KeyEnds;
    try {
      ends = await this.source.keyEnds(keyIds);
    } catch (error) {
      this.onError("checking the keys of open subscriptions failed", error);
      return;
    }
    if (ends.nextEndAt !== null) this.checkKeysAt(ends.nextEndAt);
    if (ends.ended.size === 0) return;
    for (const set of this.subscribers.values())
      for (const subscriber of [...set]) {
        const reason = subscriber.owner.keyId ? ends.ended.get(subscriber.owner.keyId) : undefined;
        if (reason) subscriber.endByService(reason);
      }
  }

  /**
   * Checks the open subscriptions' keys again when one of them expires or ends its rotation grace: no
   * process changes anything then, so no notification would say so. One timer, for the soonest end.
   */
  private checkKeysAt(endAt: number): void {
    if (this.closed || (this.nextKeyCheck && this.nextKeyCheck.at <= endAt)) return;
    if (this.nextKeyCheck) clearTimeout(this.nextKeyCheck.timer);
    // setTimeout holds at most about 24.8 days; a later end is looked at again then.
    const delay = Math.min(Math.max(endAt - Date.now(), 0) + 10, 2 ** 31 - 1);
    const timer = setTimeout(() => {
      this.nextKeyCheck = null;
      this.keysChanged();
    }, delay);
    timer.unref();
    this.nextKeyCheck = { at: endAt, timer };
  }

  private async start(): Promise<void> {
    if (this.position !== null) return;
    this.starting ??= (async () => {
      this.stopListening ??= await this.source.listen(() => this.wake());
      this.stopHearingKeys ??= await this.source.listenForKeyChanges(() => this.keysChanged());
      this.position = await this.source.head();
    })().finally(() => {
      this.starting = null;
    });
    await this.starting;
  }

  private async read(): Promise<void> {
    try {
      for (;;) {
        const events = await this.source.after(this.position as bigint, PAGE);
        for (const event of events) {
          this.position = event.position;
          for (const subscriber of this.subscribers.get(event.workspaceId) ?? []) subscriber.offer(event);
        }
        if (events.length < PAGE) return;
      }
    } catch (error) {
      this.onError("reading the change log for subscriptions failed", error);
    }
  }

  private remove(subscriber: Subscriber): void {
    const { workspaceId } = subscriber.owner;
    const set = this.subscribers.get(workspaceId);
    if (!set?.delete(subscriber)) return;
    if (set.size === 0) this.subscribers.delete(workspaceId);
    this.count--;
    const key = keyOf(subscriber.owner);
    const keyCount = (this.perKey.get(key) ?? 1) - 1;
    if (keyCount > 0) this.perKey.set(key, keyCount);
    else this.perKey.delete(key);
    // Nobody listens: stop following the log; the next subscriber starts again at its head.
    if (this.count === 0) this.position = null;
  }
}

/** Keyless subscriptions (none today) would share their workspace's count; ":" keeps them apart from key ids. */
function keyOf(owner: SubscriptionOwner): string {
  return owner.keyId ?? `:${owner.workspaceId}`;
}

/** One subscription: a bounded queue read as an async iterator. */
class Subscriber implements AsyncIterableIterator<StreamItem> {
  private readonly queue: StreamItem[] = [];
  private waiting: ((result: IteratorResult<StreamItem>) => void) | null = null;
  /** No more events are taken; what is queued (at most the final StreamEnd) is still read. */
  private done = false;

  constructor(
    readonly owner: SubscriptionOwner,
    private readonly filter: ChangeFilter,
    private readonly maxQueued: number,
    private readonly onEndedByService: ((reason: StreamEndReason) => void) | undefined,
    private readonly onEnd: () => void,
  ) {}

  offer(event: Event): void {
    if (this.done) return;
    const passed = this.filter(event);
    if (!passed) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: passed, done: false });
      return;
    }
    if (this.queue.length >= this.maxQueued) {
      this.endByService("SUBSCRIBER_TOO_SLOW");
      return;
    }
    this.queue.push(passed);
  }

  /** Ends the subscription quietly: what is queued is dropped and the stream completes. */
  end(): void {
    if (this.done) return;
    this.finish([]);
  }

  /** Ends the subscription with a last item naming the reason, read before the stream completes. */
  endByService(reason: StreamEndReason): void {
    if (this.done) return;
    this.finish([{ endedBecause: reason }]);
    this.onEndedByService?.(reason);
  }

  next(): Promise<IteratorResult<StreamItem>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<StreamItem>> {
    this.end();
    this.queue.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StreamItem> {
    return this;
  }

  private finish(last: StreamItem[]): void {
    this.done = true;
    this.queue.length = 0;
    this.queue.push(...last);
    this.onEnd();
    const waiting = this.waiting;
    this.waiting = null;
    if (!waiting) return;
    const item = this.queue.shift();
    waiting(item ? { value: item, done: false } : { value: undefined, done: true });
  }
}
