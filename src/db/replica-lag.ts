// A replica's replay lag in time, from positions alone: the primary's position is sampled with each
// poll (and each read's position), so a replica that has not replayed position P is behind by at least
// the time since the primary was first seen past P. A replica idle with the primary is 0 behind, however
// long since the last commit (unlike now() - pg_last_xact_replay_timestamp(), which grows when nothing
// is written).

interface Sample {
  position: bigint;
  at: number;
}

export class ReplicaLag {
  /** Ascending by position and time; the oldest kept is the first beyond the window the answer needs. */
  private samples: Sample[] = [];

  constructor(private readonly maxLagMs: number) {}

  primaryAt(position: bigint, at: number): void {
    const last = this.samples.at(-1);
    if (last && last.position >= position) return;
    this.samples.push({ position, at });
    // Older samples matter only to say "more than the maximum behind": keep one beyond it.
    const horizon = at - this.maxLagMs * 2;
    while (this.samples.length > 2 && (this.samples[1] as Sample).at < horizon) this.samples.shift();
  }

  /** How long since the primary was first seen past `replayed` (0: not behind any sample). */
  lagMs(replayed: bigint, now: number): number {
    const firstAhead = this.samples.find((sample) => sample.position > replayed);
    return firstAhead ? now - firstAhead.at : 0;
  }

  tooFar(replayed: bigint, now: number): boolean {
    return this.lagMs(replayed, now) > this.maxLagMs;
  }
}
