// A per-instance bound on concurrent image transforms, shared fairly between workspaces. libvips spreads
// one transform over every core, so a handful at once already fills the machine; more would only queue
// inside libvips, holding memory for each. A request that finds no slot waits briefly, then is refused
// with 503 and Retry-After: a burst of new URLs slows to the machine's pace instead of taking the
// instance down.
//
// Transform URLs need no key, so anyone can send a burst against one workspace's images. That burst must
// not hold up the others: each workspace waits in its own queue, a freed slot goes to the waiting
// workspace served least recently (so workspaces take turns), and with more than one slot a workspace holds all but one at most, so another
// workspace's new variant finds a slot free rather than waiting behind it.
import { TransformsBusyError } from "../domain/errors.ts";

interface Waiter {
  grant(): void;
}

export class TransformSlots {
  private active = 0;
  /** Slots each workspace holds now. */
  private readonly held = new Map<string, number>();
  /** Each workspace's waiters in arrival order. */
  private readonly queues = new Map<string, Waiter[]>();
  /** When each workspace holding or awaiting a slot last got one (a serial number; none: never). */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private readonly perWorkspace: number;

  constructor(
    /** Transforms running at once at most. */
    private readonly capacity: number,
    /** Milliseconds a transform waits for a slot before TransformsBusyError. */
    private readonly waitMs: number,
  ) {
    this.perWorkspace = Math.max(1, capacity - 1);
  }

  /** Runs `work` for `workspace` in a slot, waiting for one for up to `waitMs`. */
  async run<T>(workspace: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(workspace);
    try {
      return await work();
    } finally {
      this.release(workspace);
    }
  }

  /** Transforms running now, and requests waiting for a slot (for metrics and tests). */
  get load(): { active: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { active: this.active, waiting };
  }

  private acquire(workspace: string): Promise<void> {
    if (!this.queues.has(workspace) && this.mayTake(workspace)) {
      this.take(workspace);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.leaveQueue(workspace, waiter);
        reject(new TransformsBusyError(Math.max(1, Math.ceil(this.waitMs / 1000))));
      }, this.waitMs);
      const queue = this.queues.get(workspace);
      if (queue) queue.push(waiter);
      else this.queues.set(workspace, [waiter]);
    });
  }

  private release(workspace: string): void {
    this.active--;
    const held = (this.held.get(workspace) ?? 1) - 1;
    if (held > 0) this.held.set(workspace, held);
    else this.held.delete(workspace);
    this.forgetIfIdle(workspace);
    this.grantWaiting();
  }

  /** Hands free slots to the waiting workspaces, the one served least recently first. */
  private grantWaiting(): void {
    while (this.active < this.capacity) {
      let next: string | undefined;
      for (const workspace of this.queues.keys())
        if (this.mayTake(workspace) && (next === undefined || this.servedAt(workspace) < this.servedAt(next)))
          next = workspace;
      if (next === undefined) return;
      const queue = this.queues.get(next) ?? [];
      const waiter = queue.shift();
      if (!queue.length) this.queues.delete(next);
      if (!waiter) continue;
      this.take(next);
      waiter.grant();
    }
  }

  private servedAt(workspace: string): number {
    return this.lastServed.get(workspace) ?? 0;
  }

  private mayTake(workspace: string): boolean {
    return this.active < this.capacity && (this.held.get(workspace) ?? 0) < this.perWorkspace;
  }

  private take(workspace: string): void {
    this.active++;
    this.held.set(workspace, (this.held.get(workspace) ?? 0) + 1);
    this.lastServed.set(workspace, ++this.served);
  }

  /** A workspace neither holding nor awaiting a slot is forgotten (its next request is served first). */
  private forgetIfIdle(workspace: string): void {
    if (!this.held.has(workspace) && !this.queues.has(workspace)) this.lastServed.delete(workspace);
  }

  private leaveQueue(workspace: string, waiter: Waiter): void {
    const queue = this.queues.get(workspace);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index !== -1) queue.splice(index, 1);
    if (!queue.length) this.queues.delete(workspace);
    this.forgetIfIdle(workspace);
  }
}
