// The change log head kept in memory, for a database only this process writes (the embedded store:
// embedded-lock.ts lets one process open it, and the CLI reaches a running server through its control
// socket). Every content write goes through write() (writer.ts), whose listeners run after COMMIT and
// before the write returns to its caller: so a workspace's head cannot move without this process having
// taken the head the write left (the position of its last event there, which the append returns) or
// forgotten the head it kept, before whoever wrote is answered. A head is read once (through `read`,
// shared by concurrent reads) and kept until a committed change of its workspace; a cache hit then costs
// no statement at all, before or after a write. A read that was under way when a change committed is not
// kept (it may hold the head from before the change), though it answers the reads that were waiting for
// it, which arrived before the change had returned.
import type { Change } from "../change.ts";
import type { WorkspaceAppend } from "./change-log.ts";

/** A committed write's news of one workspace: its head after the write, when the write appended events there. */
export interface HeadMoved {
  workspaceId: string;
  /** The position of the write's last event in the workspace; absent: unknown, read it again. */
  head?: number;
}

/** `onChanges` tells of committed changes, with the workspaces they changed. */
export function createTrackedLogHead(
  read: (workspaceId: string) => Promise<string>,
  onChanges: (listener: (moves: readonly HeadMoved[]) => void) => void,
): (workspaceId: string) => Promise<string> {
  /** Per workspace, the head known, as a number (to keep the larger) and as the promise handed out. */
  const kept = new Map<string, { position: number; head: Promise<string> }>();
  const keep = (workspaceId: string, head: string) =>
    kept.set(workspaceId, { position: Number(head), head: Promise.resolve(head) });
  /** Per workspace, how many changes this process has heard of: a read keeps its head only if none came. */
  const changesHeard = new Map<string, number>();
  onChanges((moves) => {
    for (const { workspaceId, head } of moves) {
      changesHeard.set(workspaceId, (changesHeard.get(workspaceId) ?? 0) + 1);
      // Every event up to the write's last one is committed (appends take turns until COMMIT), and a
      // later write's news may have come first: the larger head stands.
      const known = kept.get(workspaceId);
      if (head === undefined) kept.delete(workspaceId);
      else if (!known || known.position < head) keep(workspaceId, String(head));
    }
  });
  return (workspaceId) => {
    const known = kept.get(workspaceId);
    if (known) return known.head;
    const heardBefore = changesHeard.get(workspaceId) ?? 0;
    const head = read(workspaceId);
    head.then(
      (value) => {
        if ((changesHeard.get(workspaceId) ?? 0) === heardBefore && !kept.has(workspaceId))
          keep(workspaceId, value);
      },
      () => {},
    );
    return head;
  };
}

/**
 * What a committed write tells the kept heads: each workspace it changed, with the position of its last
 * event there (none appended there, e.g. an API key's change: unknown, so the head is read again).
 */
export function headsMovedBy(changes: readonly Change[], appended: readonly WorkspaceAppend[]): HeadMoved[] {
  const heads = new Map<string, number | undefined>(changes.map((change) => [change.workspaceId, undefined]));
  for (const append of appended) heads.set(append.workspaceId, append.events.at(-1)?.position);
  return [...heads].map(([workspaceId, head]) =>
    head === undefined ? { workspaceId } : { workspaceId, head },
  );
}
