// Live changes for GraphQL subscriptions, read from the change log after commit — never from resolver
// calls — so a change made on another instance, by the CLI or by a scheduler reaches every subscriber.
//
// One reader per instance tails the log (all workspaces, in position order) and hands each event to
// the subscribers of its workspace. It reads when woken: by this instance's commits (the writer's
// signal) and, on PostgreSQL, by the NOTIFY every append sends (other processes' commits). It only
// reads while someone subscribes; the first subscriber starts it at the log's head.
//
// Bounded: each subscriber has a queue of at most `maxQueued` events. One that does not read (its
// connection stalls, so the SSE stream stops pulling) is ended with an error once its queue is full,
// instead of being buffered forever.
import type { Event } from "../../generated/prisma/client.ts";

export interface ChangeStreamSource {
  /** The newest position of the whole log now ("0" before any event). */
  head(): Promise<bigint>;
  /** Events after `position`, oldest first, at most `limit`. */
  after(position: bigint, limit: number): Promise<Event[]>;
  /** Starts hearing other processes' commits; returns the stop. */
  listen(onNotify: () => void): Promise<() => Promise<void>>;
}

/** Decides what a subscriber receives of an event: the event, a reduced copy, or nothing (null). */
export type ChangeFilter = (event: Event) => Event | null;

export class SubscriberTooSlowError extends Error {
  override name = "SubscriberTooSlowError";
}

const PAGE = 500;

export class ChangeStream {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private count = 0;
  private position: bigint | null = null;
  private starting: Promise<void> | null = null;
  private reading: Promise<void> | null = null;
  private wokenWhileReading = false;
  private stopListening: (() => Promise<void>) | null = null;
  private closed = false;

  constructor(
    private readonly source: ChangeStreamSource,
    private readonly maxQueued = 100,
    private readonly onError: (message: string, error: unknown) => void = () => {},
  ) {}

  /** Events of `workspaceId` from now on, as `filter` lets them through; ends when the caller stops. */
  async subscribe(workspaceId: string, filter: ChangeFilter): Promise<AsyncIterableIterator<Event>> {
    if (this.closed) throw new Error("The service is shutting down");
    await this.start();
    const subscriber = new Subscriber(filter, this.maxQueued, () => this.remove(workspaceId, subscriber));
    const set = this.subscribers.get(workspaceId) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.subscribers.set(workspaceId, set);
    this.count++;
    return subscriber;
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
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.end();
    this.subscribers.clear();
    await this.stopListening?.();
  }

  get subscriberCount(): number {
    return this.count;
  }

  private async start(): Promise<void> {
    if (this.position !== null) return;
    this.starting ??= (async () => {
      this.stopListening ??= await this.source.listen(() => this.wake());
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

  private remove(workspaceId: string, subscriber: Subscriber): void {
    const set = this.subscribers.get(workspaceId);
    if (!set?.delete(subscriber)) return;
    this.count--;
    if (set.size === 0) this.subscribers.delete(workspaceId);
    // Nobody listens: stop following the log; the next subscriber starts again at its head.
    if (this.count === 0) this.position = null;
  }
}

/** One subscription: a bounded queue read as an async iterator. */
class Subscriber implements AsyncIterableIterator<Event> {
  private readonly queue: Event[] = [];
  private waiting: ((result: IteratorResult<Event>) => void) | null = null;
  private failWaiting: ((error: Error) => void) | null = null;
  private done = false;
  private failure: Error | null = null;

  constructor(
    private readonly filter: ChangeFilter,
    private readonly maxQueued: number,
    private readonly onEnd: () => void,
  ) {}

  offer(event: Event): void {
    if (this.done) return;
    const passed = this.filter(event);
    if (!passed) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      this.failWaiting = null;
      resolve({ value: passed, done: false });
      return;
    }
    if (this.queue.length >= this.maxQueued) {
      this.fail(
        new SubscriberTooSlowError(`More than ${this.maxQueued} changes waited unread: subscription ended`),
      );
      return;
    }
    this.queue.push(passed);
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.queue.length = 0;
    this.onEnd();
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
  }

  next(): Promise<IteratorResult<Event>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      return Promise.reject(failure);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<Event>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Event> {
    return this;
  }

  private fail(error: Error): void {
    this.queue.length = 0;
    this.end();
    this.failure = error;
    if (this.failWaiting) {
      this.failWaiting(error);
      this.failure = null;
    }
  }
}
