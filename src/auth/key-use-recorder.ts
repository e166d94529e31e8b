// When and from where each API key was last used (issue 57), at no statement per request: uses are
// noted in memory and written in one batched statement, at most once a minute per key and instance,
// cached hits included. The write goes around the one writer on purpose: it is bookkeeping, not a
// change of what a key may do, so it records no event and does not empty any instance's key cache.
import type { SqlExecutor } from "../db/sql-executor.ts";

export interface KeyUseRecorder {
  /** Notes a use of a key from a client address; free unless the key's minute has passed. */
  noteUse(keyId: string, address: string): void;
  /** Writes what is noted (on its timer, and when the service stops). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

const UPDATE_LAST_USE = `UPDATE "ApiKey" AS k SET "lastUsedAt" = u.at AT TIME ZONE 'UTC', "lastUsedFrom" = u.address
FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS u(id, at, address)
WHERE k.id = u.id AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < u.at AT TIME ZONE 'UTC')`;

export function createKeyUseRecorder(
  sql: SqlExecutor,
  options: {
    everyMs?: number;
    flushEveryMs?: number;
    now?: () => number;
    onError?: (error: unknown) => void;
  } = {},
): KeyUseRecorder {
  const everyMs = options.everyMs ?? 60_000;
  const now = options.now ?? Date.now;
  /** When each key's use was last noted for writing: a key is noted again only a minute later. */
  const notedAt = new Map<string, number>();
  let pending = new Map<string, { at: number; address: string }>();
  let flushing: Promise<void> | null = null;
  // Armed only while uses wait to be written: an idle recorder holds no timer, so it neither wakes the
  // process nor keeps its database reachable after the app that made it is gone (an app without a stop
  // of its own, as tests build them: app/services.ts makes one when it is given no callers).
  let timer: NodeJS.Timeout | undefined;
  const flushSoon = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void recorder.flush();
    }, options.flushEveryMs ?? 5_000);
    timer.unref();
  };

  const recorder: KeyUseRecorder = {
    noteUse(keyId, address) {
      const at = now();
      const last = notedAt.get(keyId);
      if (last !== undefined && at - last < everyMs) return;
      // Bounded: past 100,000 keys the oldest notes are forgotten (a key is then written again sooner).
      if (notedAt.size >= 100_000) notedAt.clear();
      notedAt.set(keyId, at);
      pending.set(keyId, { at, address });
      flushSoon();
    },
    async flush() {
      if (flushing) return flushing;
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      const ids = [...batch.keys()];
      const uses = [...batch.values()];
      flushing = sql
        .query(UPDATE_LAST_USE, [
          ids,
          uses.map((use) => new Date(use.at).toISOString()),
          uses.map((use) => use.address),
        ])
        .then(
          () => undefined,
          (error: unknown) => options.onError?.(error),
        )
        .finally(() => {
          flushing = null;
          // Uses noted while this write was in flight wait for the next.
          if (pending.size > 0) flushSoon();
        });
      return flushing;
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await flushing;
      await recorder.flush();
    },
  };
  return recorder;
}
