// Where the REST cache keeps its answers' bytes: one buffer of CACHE_MAX_BYTES, written round like a
// log. Each answer is copied in at the write position; the bytes of an older answer stay readable
// until the writer has gone once round past them.
//
// Why not a Buffer per answer: long-lived blocks of 50 KB from malloc, among the short-lived ones
// every request makes (socket reads, computed bodies), kept the allocator from reusing freed memory,
// so each cache miss paid about 20 fresh page faults and a fifth more CPU than the same read uncached
// (`perf record -e page-faults` on the bench's miss). Held as strings on V8's heap instead, the
// garbage collector copied every answer into the old generation and the faults moved to its threads.
// Here nothing is allocated per answer and nothing is freed: the faults are paid once, on the first
// round.
//
// What a reader gets is a copy: a view of the slab handed to a socket could be overwritten while a
// slow client is still being sent it.

/** Where one answer's bytes are: the writer's position when they were written, and how many. */
export interface SlabSlot {
  /** Bytes written to the slab before these (never wraps: a position in the slab is `at % size`). */
  at: number;
  length: number;
}

export class AnswerSlab {
  private readonly bytes: Buffer;
  /** Bytes written so far, counting the tail left unused each time the writer wraps round. */
  private written = 0;

  constructor(readonly size: number) {
    // Untouched pages cost nothing until the writer reaches them.
    this.bytes = Buffer.allocUnsafeSlow(size);
  }

  /** Copies `source` in; null when it is larger than the slab (such an answer is not kept). */
  write(source: Uint8Array): SlabSlot | null {
    const { length } = source;
    if (length > this.size) return null;
    const offset = this.written % this.size;
    // An answer is never split: the tail that cannot hold it is skipped.
    if (offset + length > this.size) this.written += this.size - offset;
    const at = this.written;
    this.bytes.set(source, at % this.size);
    this.written += length;
    return { at, length };
  }

  /** Whether the slot's bytes are still there: the writer has not yet come round to them. */
  holds(slot: SlabSlot): boolean {
    return this.written - slot.at <= this.size;
  }

  /** How far the writer has gone since the slot was written, as a share of the slab (0 to 1). */
  age(slot: SlabSlot): number {
    return (this.written - slot.at) / this.size;
  }

  /** A copy of the slot's bytes, or null when they have been overwritten. */
  read(slot: SlabSlot): Buffer | null {
    if (!this.holds(slot)) return null;
    const start = slot.at % this.size;
    return Buffer.from(this.bytes.subarray(start, start + slot.length));
  }
}
