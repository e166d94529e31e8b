// A writer scenario of `npm run bench:writers` measured in alternating slices of one continuous read load.
//
// On this 2-core VM the same reads-only load runs at 7,800–13,300 req/s in consecutive 10-second runs
// (the service's main thread ~95% busy in all of them, its CPU per read 0.075–0.138 ms: the host's speed
// drifts, not our work; bench/README.md). A writer that costs a few percent cannot be told from that
// drift by comparing separate runs. So the writer writes only in "on" slices of SLICE_MS, in the order
// off, on, on, off, off, on, on, off, … (a linear drift falls on both halves alike), and the reads
// completed in each slice are counted: the ratio of the on slices' rate to the off slices' rate of the
// same run is the writer's cost. A control scenario holds the same slices and writes in none of them.
// Inside an on slice the writes come at fixed offsets (WRITES_PER_SECOND a second, each after the previous
// returned), so no write of an on slice spills into the next off slice unless it takes longer than its gap.
//
// That order alone still leans: over 15 control runs of 2026-11-27 (no writes at all) a run's throughput
// fell from its first slices to its eighth (relative rates by slice 1.06 1.07 1.02 1.01 0.99 1.00 0.97
// 0.92 0.97 0.99), which made the on slices of that order 2% faster than its off slices with nothing
// written. So every other round runs the mirrored order (on, off, off, on, …): pooled over an even
// number of rounds, each slice of a run is an on slice and an off slice equally often.

export const SLICE_MS = 2_000;
const ORDER = [false, true, true, false] as const;

/**
 * Whether the writer writes in the measured run's slice `index` (negative: before the measured run); in
 * the `mirrored` order, exactly in the slices the plain order leaves out.
 */
export function writesInSlice(index: number, mirrored = false): boolean {
  return (ORDER[((index % ORDER.length) + ORDER.length) % ORDER.length] ?? false) !== mirrored;
}

/** The order's first slices as words ("off, on, on, off"), for printing a run's slices. */
export function sliceOrderLabel(mirrored: boolean): string {
  return ORDER.map((_, index) => (writesInSlice(index, mirrored) ? "on" : "off")).join(", ");
}

/** Counts responses into the measured run's slices, from `startedAt` (performance.now()) on. */
export class SliceCounter {
  readonly #counts: number[] = [];
  constructor(
    readonly startedAt: number,
    readonly mirrored = false,
  ) {}

  count(at = performance.now()): void {
    const slice = Math.floor((at - this.startedAt) / SLICE_MS);
    if (slice >= 0) this.#counts[slice] = (this.#counts[slice] ?? 0) + 1;
  }

  /** req/s of each whole slice of the first `seconds`, in order (the first is an off slice unless mirrored). */
  rates(seconds: number): number[] {
    const slices = Math.floor((seconds * 1_000) / SLICE_MS);
    return Array.from({ length: slices }, (_, index) => (this.#counts[index] ?? 0) / (SLICE_MS / 1_000));
  }

  /**
   * Responses and req/s of the on and off slices, over the first `seconds` (whole slices only: a slice
   * cut short by the run's end would count fewer responses than its length says).
   */
  totals(seconds: number): { on: SliceTotal; off: SliceTotal } {
    const slices = Math.floor((seconds * 1_000) / SLICE_MS);
    const on = { responses: 0, seconds: 0, rps: 0 };
    const off = { responses: 0, seconds: 0, rps: 0 };
    for (let index = 0; index < slices; index++) {
      const half = writesInSlice(index, this.mirrored) ? on : off;
      half.responses += this.#counts[index] ?? 0;
      half.seconds += SLICE_MS / 1_000;
    }
    for (const half of [on, off]) half.rps = half.seconds > 0 ? half.responses / half.seconds : 0;
    return { on, off };
  }
}

export interface SliceTotal {
  responses: number;
  seconds: number;
  rps: number;
}

/**
 * When the writer's next write is due, at `now` or later: every `1000 / writesPerSecond` ms at the fixed
 * offsets of the on slices, counted from `measuredFrom` (the warm-up before it is sliced alike).
 */
export function nextWriteAt(
  now: number,
  writesPerSecond: number,
  measuredFrom: number,
  mirrored = false,
): number {
  const gap = 1_000 / writesPerSecond;
  for (let slice = Math.floor((now - measuredFrom) / SLICE_MS); ; slice++) {
    if (!writesInSlice(slice, mirrored)) continue;
    const sliceStart = measuredFrom + slice * SLICE_MS;
    const offset = Math.max(0, Math.ceil((now - sliceStart) / gap)) * gap;
    if (offset < SLICE_MS) return sliceStart + offset;
  }
}

/**
 * CPU readings at the measured run's slice boundaries, so that on and off slices can be told apart by
 * who worked in them (the service's threads, the load generator, PostgreSQL), not only by how many reads
 * were answered. `read` returns cumulative CPU milliseconds by name; a reading comes on a timer in the
 * load generator's own event loop, a few milliseconds late at worst, and its true moment is kept.
 */
export class SliceCpuSampler {
  readonly #readings: { at: number; cpu: Map<string, number> }[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly startedAt: number,
    readonly slices: number,
    readonly read: () => Map<string, number>,
    readonly mirrored = false,
  ) {
    this.#schedule(0);
  }

  #schedule(boundary: number): void {
    if (boundary > this.slices) return;
    const due = this.startedAt + boundary * SLICE_MS;
    this.#timer = setTimeout(
      () => {
        this.#readings.push({ at: performance.now(), cpu: this.read() });
        this.#schedule(boundary + 1);
      },
      Math.max(0, due - performance.now()),
    );
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  /** CPU ms per second of each name in the on and the off slices (the slices read so far). */
  perSecond(): { on: Map<string, number>; off: Map<string, number> } {
    const sums = { on: new Map<string, number>(), off: new Map<string, number>() };
    const seconds = { on: 0, off: 0 };
    for (let index = 0; index + 1 < this.#readings.length; index++) {
      const [from, to] = [this.#readings[index], this.#readings[index + 1]];
      if (!from || !to) continue;
      const half = writesInSlice(index, this.mirrored) ? "on" : "off";
      seconds[half] += (to.at - from.at) / 1_000;
      for (const [name, ms] of to.cpu)
        sums[half].set(name, (sums[half].get(name) ?? 0) + ms - (from.cpu.get(name) ?? ms));
    }
    const rate = (half: "on" | "off") =>
      new Map([...sums[half]].map(([name, ms]) => [name, seconds[half] > 0 ? ms / seconds[half] : 0]));
    return { on: rate("on"), off: rate("off") };
  }
}
