// Per workspace, the last position at which each dependency key changed (answer-dependencies.ts), fed
// from the change log: what lets a cached answer survive writes that cannot change it.
//
// Exactness: the caches read the workspace's head as before (one statement per batched read, or none on
// the embedded store), and `coverUpTo(head)` runs before that head is handed to any cache — so when an
// answer is looked up, this instance knows every event up to a head read after the request arrived. If
// the index is behind, it reads the missing events (one statement, once per write per instance). An
// answer computed at position `p` is fresh iff `p` is not older than what the index knows nothing about
// (its floor) and none of its keys changed after `p`. An answer computed at a position the index has not
// reached yet (the post list reads its head in its own statement) is newer than the request's head, so
// serving it is never older than what was committed when the request arrived.
//
// Where the index cannot know (a workspace first seen, more missing events than it will read, a long
// idle gap after which the change log's retention may have pruned events it never read) it moves its
// floor to the head: every older answer counts as changed, as the whole-head cache did.
import { keysChangedBy } from "./answer-dependencies.ts";

/**
 * One event of the change log as the index needs it. Declared here, the cache's own vocabulary (the
 * cache imports nothing of the project: test/architecture/layering.test.ts); src/content/changes/log-tail.ts
 * reads events of this shape and services.ts hands its reader to the index.
 */
export interface LoggedChange {
  position: number;
  type: string;
  resourceId: string;
  /** The status of the post as the event left it (`draft`, `published`), null for other resources and deletes. */
  postStatus: string | null;
  /** A post update that left every post list as it was: which posts each list holds, and their order. */
  keepsListings: boolean;
}

export interface ChangeIndexOptions {
  /** The workspace's events in (after, upTo], at most `limit` (src/content/changes/log-tail.ts). */
  readChanges(workspaceId: string, after: number, upTo: number, limit: number): Promise<LoggedChange[]>;
  /** More missing events than this: the floor moves to the head instead. */
  maxCatchUp?: number;
  /** Keys remembered per workspace; beyond, the floor moves to the position known. */
  maxKeys?: number;
  /** Not caught up for this long: the floor moves instead (far below the log's shortest retention, a day). */
  maxIdleMs?: number;
  now?: () => number;
}

export interface ChangeIndex {
  /** Makes the workspace's index know every event up to `head` (reads what it is missing). */
  coverUpTo(workspaceId: string, head: string): Promise<void>;
  /**
   * Told by the database's only writer, after COMMIT, of the events one write appended to the workspace
   * and the workspace's head right before them: every event of the workspace in (headBefore, last]. When
   * the index already knows every event up to `headBefore`, it applies them and knows every event up to
   * the last, with no statement; otherwise it leaves them to the next catch-up. Only for a process no
   * other writer shares a database with (services.ts wires it for the embedded and in-memory stores).
   */
  takeAppended(workspaceId: string, headBefore: number, changes: readonly LoggedChange[]): void;
  /**
   * Whether an answer computed at `position` with these dependencies is unchanged up to the index's
   * position. `checked`, kept with the answer, remembers how far it was found unchanged: until another
   * change is applied, a lookup of that answer then reads none of its keys again.
   */
  isFresh(
    workspaceId: string,
    position: number,
    dependencies: readonly string[],
    checked?: FreshnessCheck,
  ): boolean;
}

/**
 * How far one answer (computed at one position, with one set of dependencies) is known unchanged: every
 * event up to `through` was applied and changed none of its keys. After a write every cached answer is
 * looked up under a head newer than its own, and a list page has some forty keys to read per lookup
 * (0.7 µs of a 48–62 µs hit in the embedded writers bench's profile); this makes it one comparison.
 */
export interface FreshnessCheck {
  through: number;
}

/** A check that knows nothing yet, for an answer being stored. */
export function newFreshnessCheck(): FreshnessCheck {
  return { through: -1 };
}

interface WorkspaceIndex {
  /** Every event up to here has been applied. */
  position: number;
  /** Nothing is known of events up to here: answers computed before it count as changed. */
  floor: number;
  lastChanged: Map<string, number>;
  /** The position of the newest change applied (or of the floor, after a reset): a check through it still holds. */
  lastChangeAt: number;
  coveredAt: number;
  /** The catch-up under way, if any: concurrent reads wait for it rather than read the same events. */
  catchingUp: Promise<void> | null;
}

export function createChangeIndex(options: ChangeIndexOptions): ChangeIndex {
  const maxCatchUp = options.maxCatchUp ?? 1_000;
  const maxKeys = options.maxKeys ?? 100_000;
  const maxIdleMs = options.maxIdleMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  const workspaces = new Map<string, WorkspaceIndex>();

  const resetTo = (index: WorkspaceIndex, position: number) => {
    index.floor = Math.max(index.floor, position);
    index.position = Math.max(index.position, position);
    index.lastChanged.clear();
    index.lastChangeAt = index.floor;
  };

  // Positions only move forward: a catch-up and a writer's report may both carry an event.
  const apply = (index: WorkspaceIndex, changes: readonly LoggedChange[]) => {
    for (const change of changes) {
      for (const key of keysChangedBy(change))
        index.lastChanged.set(key, Math.max(index.lastChanged.get(key) ?? change.position, change.position));
      index.position = Math.max(index.position, change.position);
      index.lastChangeAt = Math.max(index.lastChangeAt, change.position);
    }
    if (index.lastChanged.size > maxKeys) resetTo(index, index.position);
  };

  const catchUp = async (workspaceId: string, index: WorkspaceIndex, target: number) => {
    if (now() - index.coveredAt > maxIdleMs) {
      resetTo(index, target);
      return;
    }
    const changes = await options.readChanges(workspaceId, index.position, target, maxCatchUp + 1);
    if (changes.length > maxCatchUp) resetTo(index, target);
    else apply(index, changes);
    // Every event up to the target is known now, whether or not the last one belonged to this workspace.
    index.position = Math.max(index.position, target);
  };

  const coverUpTo = async (workspaceId: string, head: string): Promise<void> => {
    const target = Number(head);
    let index = workspaces.get(workspaceId);
    if (!index) {
      // First sight of the workspace: nothing before this head is known.
      index = {
        position: target,
        floor: target,
        lastChanged: new Map(),
        lastChangeAt: target,
        coveredAt: now(),
        catchingUp: null,
      };
      workspaces.set(workspaceId, index);
      return;
    }
    while (index.position < target) {
      if (index.catchingUp) {
        await index.catchingUp;
        continue;
      }
      const running = catchUp(workspaceId, index, target).finally(() => {
        index.catchingUp = null;
      });
      index.catchingUp = running;
      await running;
    }
    index.coveredAt = now();
  };

  return {
    coverUpTo,
    takeAppended(workspaceId, headBefore, changes) {
      const index = workspaces.get(workspaceId);
      if (!index || changes.length === 0 || index.position < headBefore) return;
      apply(index, changes);
      index.coveredAt = now();
    },
    isFresh(workspaceId, position, dependencies, checked) {
      const index = workspaces.get(workspaceId);
      if (!index || position < index.floor) return false;
      // Found unchanged through a position no change came after: still unchanged (a reset moves
      // lastChangeAt to the floor, so a check from before it is not trusted).
      if (checked && checked.through >= index.lastChangeAt) return true;
      for (const key of dependencies) {
        const changed = index.lastChanged.get(key);
        if (changed !== undefined && changed > position) return false;
      }
      if (checked) checked.through = index.position;
      return true;
    },
  };
}
