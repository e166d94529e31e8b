// A per-instance bound on concurrent image transforms. libvips spreads one transform over every core,
// so a handful at once already fills the machine; more would only queue inside libvips, holding memory
// for each. A request that finds every slot taken waits briefly, then is refused with 503 and
// Retry-After: a burst of new URLs slows to the machine's pace instead of taking the instance down.
import { TransformsBusyError } from "../domain/errors.ts";

export class TransformSlots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    /** Transforms running at once at most. */
    private readonly capacity: number,
    /** Milliseconds a transform waits for a slot before TransformsBusyError. */
    private readonly waitMs: number,
  ) {}

  /** Runs `work` in a slot, waiting for one for up to `waitMs`. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Transforms running now, and requests waiting for a slot (for metrics and tests). */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  private acquire(): Promise<void> {
    if (this.active < this.capacity) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(new TransformsBusyError(Math.max(1, Math.ceil(this.waitMs / 1000))));
      }, this.waitMs);
      this.waiting.push(grant);
    });
  }

  private release(): void {
    // The slot passes straight to the next waiter, so `active` never dips below what is running.
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
