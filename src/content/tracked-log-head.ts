// The change log head kept in memory, for a database only this process writes (the embedded store:
// embedded-lock.ts lets one process open it, and the CLI reaches a running server through its control
// socket). Every content write goes through write() (writer.ts), whose listeners run after COMMIT and
// before the write returns to its caller: so a workspace's head cannot move without this process having
// forgotten the head it kept, before whoever wrote is answered. A head is read once (through `read`,
// shared by concurrent reads) and kept until a committed change of its workspace; a cache hit then costs
// no statement at all. A read that was under way when a change committed is not kept (it may hold the
// head from before the change), though it answers the reads that were waiting for it, which arrived
// before the change had returned.

/** `onChanges` tells of committed changes, with the workspaces they changed. */
export function createTrackedLogHead(
  read: (workspaceId: string) => Promise<string>,
  onChanges: (listener: (workspaceIds: readonly string[]) => void) => void,
): (workspaceId: string) => Promise<string> {
  const kept = new Map<string, Promise<string>>();
  /** Per workspace, how many changes this process has heard of: a read keeps its head only if none came. */
  const changesHeard = new Map<string, number>();
  onChanges((workspaceIds) => {
    for (const workspaceId of workspaceIds) {
      kept.delete(workspaceId);
      changesHeard.set(workspaceId, (changesHeard.get(workspaceId) ?? 0) + 1);
    }
  });
  return (workspaceId) => {
    const known = kept.get(workspaceId);
    if (known) return known;
    const heardBefore = changesHeard.get(workspaceId) ?? 0;
    const head = read(workspaceId);
    head.then(
      () => {
        if ((changesHeard.get(workspaceId) ?? 0) === heardBefore && !kept.has(workspaceId))
          kept.set(workspaceId, head);
      },
      () => {},
    );
    return head;
  };
}
