// Reads of the change log's head, shared by concurrent requests without ever answering one of them
// with a head older than its own arrival.
//
// Every cacheable read asks for its workspace's head (src/content/changes/change-log.ts logHead): under load
// that is one statement per request, most of them answering the same. A read may share a statement
// only if that statement *started after the read arrived* — then it sees every write that had returned
// before the read was sent, which is the cache's guarantee. So: at most one statement per workspace is
// running; reads that arrive while it runs wait for the next one, which starts as soon as it ends and
// answers all of them together. A read waits at most one statement longer than alone, and the
// database sees at most two statements per round trip per workspace instead of one per request.
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { logHead } from "./change-log.ts";

interface Batch {
  readers: { resolve(head: string): void; reject(error: unknown): void }[];
}

export function createLogHeadReader(
  sql: SqlExecutor,
  read: (sql: SqlExecutor, workspaceId: string) => Promise<string> = logHead,
): (workspaceId: string) => Promise<string> {
  /** Per workspace: whether a statement runs, and the reads waiting for the next one. */
  const state = new Map<string, { running: boolean; next: Batch | null }>();

  const run = (workspaceId: string, batch: Batch) => {
    const entry = state.get(workspaceId) ?? { running: false, next: null };
    entry.running = true;
    state.set(workspaceId, entry);
    read(sql, workspaceId).then(
      (head) => finish(workspaceId, batch, (reader) => reader.resolve(head)),
      (error: unknown) => finish(workspaceId, batch, (reader) => reader.reject(error)),
    );
  };

  const finish = (workspaceId: string, batch: Batch, settle: (reader: Batch["readers"][number]) => void) => {
    for (const reader of batch.readers) settle(reader);
    const entry = state.get(workspaceId);
    const waiting = entry?.next;
    if (entry && waiting) {
      entry.next = null;
      run(workspaceId, waiting);
    } else state.delete(workspaceId);
  };

  return (workspaceId) =>
    new Promise<string>((resolve, reject) => {
      const entry = state.get(workspaceId);
      if (!entry?.running) {
        run(workspaceId, { readers: [{ resolve, reject }] });
        return;
      }
      entry.next ??= { readers: [] };
      entry.next.readers.push({ resolve, reject });
    });
}
