// What the soak (service.soak.ts) believes each workspace holds: every acknowledged write is applied
// here when its answer arrives, and the end of the run reads the service back against it. An operation
// holds locks on the records it touches (locks.ts), so the model's prediction of its answer is exact;
// two requests a duel sends at once on one record are judged by the outcomes the contract allows.

export const CATEGORY_SLUGS = ["c0", "c1", "c2", "c3", "c4"] as const;
export const TAG_SLUGS = ["t0", "t1", "t2"] as const;
export const POST_SLUGS = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"] as const;
/** A workspace's webhook endpoints and media files live in numbered slots of the model. */
export const SLOTS = [0, 1, 2] as const;

export interface ModelPost {
  id: string;
  title: string;
  content: string;
  status: "published" | "draft";
  category: string;
  tags: string[];
}

export interface ModelWebhook {
  id: string;
  url: string;
  events: string[];
}

export interface WorkspaceModel {
  id: string;
  categories: Map<string, { id: string; name: string }>;
  tags: Map<string, { id: string; name: string }>;
  posts: Map<string, ModelPost>;
  webhooks: Map<number, ModelWebhook>;
  media: Map<number, { id: string }>;
}

export function emptyWorkspace(id: string): WorkspaceModel {
  return {
    id,
    categories: new Map(),
    tags: new Map(),
    posts: new Map(),
    webhooks: new Map(),
    media: new Map(),
  };
}

/** The posts (drafts included) of a category: a category with any cannot be deleted. */
export function postsIn(ws: WorkspaceModel, category: string): number {
  return [...ws.posts.values()].filter((post) => post.category === category).length;
}

interface Waiter {
  names: () => string[];
  grant: (names: string[]) => void;
}

/**
 * Locks on records by name (`<workspace>:<kind>:<slug or slot>`): an operation takes all of its names
 * at once, when none is held (no hold-and-wait, so no deadlock), and holds them until its answers came.
 */
export class RecordLocks {
  readonly #held = new Set<string>();
  readonly #waiting: Waiter[] = [];

  /** Waits until every name `names()` gives (computed when granted, from the model then) is free. */
  acquire(names: () => string[]): Promise<string[]> {
    return new Promise((grant) => {
      this.#waiting.push({ names, grant });
      this.#grant();
    });
  }

  release(names: string[]): void {
    for (const name of names) this.#held.delete(name);
    this.#grant();
  }

  #grant(): void {
    for (let i = 0; i < this.#waiting.length; ) {
      const waiter = this.#waiting[i] as Waiter;
      const names = waiter.names();
      if (names.some((name) => this.#held.has(name))) {
        i++;
        continue;
      }
      for (const name of names) this.#held.add(name);
      this.#waiting.splice(i, 1);
      waiter.grant(names);
    }
  }
}
