// Positions in PostgreSQL's write-ahead log (LSNs), the yardstick of read freshness: a replica that has
// replayed position P shows every transaction that committed before the primary's log reached P.
// PostgreSQL writes them as two hex halves (`16/B374D848`); compared here as one 64-bit number.

/** The LSN in PostgreSQL's text form as a number; null for anything else (a client's header, say). */
export function parseLsn(text: string | null | undefined): bigint | null {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text?.trim() ?? "");
  if (!match) return null;
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/** PostgreSQL's text form of an LSN. */
export function formatLsn(position: bigint): string {
  const high = (position >> 32n).toString(16).toUpperCase();
  const low = (position & 0xffffffffn).toString(16).toUpperCase();
  return `${high}/${low}`;
}

/** The later of two positions (null: none known). */
export function laterOf(a: bigint | null, b: bigint | null): bigint | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

/**
 * The primary's position, read once for every caller that asked before the statement was sent: a
 * caller that asks while one is in flight waits for the next (the one in flight may have been sent
 * before its question, and so before a commit it must see).
 *
 * The flush position, not the insert position: a plain SELECT may write WAL (pruning a page) that sits
 * unflushed for up to wal_writer_delay, and a replica cannot have replayed what was never sent, so the
 * insert position would send reads to the primary for no commit at all. Every acknowledged commit is
 * flushed first as long as commits are synchronous (`synchronous_commit` on, PostgreSQL's default; not
 * `off` for the service's connections): docs/read-replicas.md.
 */
export function coalescedPosition(read: () => Promise<bigint>): () => Promise<bigint> {
  let inFlight: Promise<bigint> | null = null;
  let next: Promise<bigint> | null = null;
  const start = (): Promise<bigint> => {
    const reading = read().finally(() => {
      inFlight = null;
    });
    inFlight = reading;
    return reading;
  };
  return () => {
    if (!inFlight) return start();
    next ??= inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = null;
        return start();
      });
    return next;
  };
}

export const PRIMARY_POSITION_SQL = "SELECT pg_current_wal_flush_lsn()::text AS lsn";
export const REPLAY_POSITION_SQL = "SELECT pg_last_wal_replay_lsn()::text AS lsn";
