// What an import tells at the end (and a dry run in advance): per kind how many records were created,
// updated, skipped (already imported, unchanged), in conflict or failed, each conflict and failure by
// name with its reason, what the source holds that was not carried over (counted by what it is), the
// media bytes stored and the time taken.
import type { RecordResult } from "../content/import/import-batch.ts";
import type { ImportKind, ImportOutcome } from "../content/import/import-records.ts";

export type OutcomeCounts = Record<ImportOutcome, number>;

export interface ImportSummary {
  dryRun: boolean;
  totals: OutcomeCounts;
  byKind: Partial<Record<ImportKind, OutcomeCounts>>;
  conflicts: { kind: ImportKind; name: string; reason: string }[];
  failures: { kind: ImportKind; name: string; reason: string }[];
  /** What the source holds that was not carried over, by what it is: `{ "WordPress pages": 18 }`. */
  leftOut: Record<string, number>;
  mediaBytes: number;
  durationMs: number;
}

const zero = (): OutcomeCounts => ({ created: 0, updated: 0, skipped: 0, conflict: 0, failed: 0 });

export class SummaryTally {
  private readonly started = Date.now();
  private readonly summary: ImportSummary;

  constructor(dryRun: boolean) {
    this.summary = {
      dryRun,
      totals: zero(),
      byKind: {},
      conflicts: [],
      failures: [],
      leftOut: {},
      mediaBytes: 0,
      durationMs: 0,
    };
  }

  add(results: readonly RecordResult[]): void {
    for (const result of results) {
      this.summary.totals[result.outcome] += 1;
      const kind = this.summary.byKind[result.kind] ?? zero();
      this.summary.byKind[result.kind] = kind;
      kind[result.outcome] += 1;
      const named = { kind: result.kind, name: result.label, reason: result.reason ?? "" };
      if (result.outcome === "conflict") this.summary.conflicts.push(named);
      if (result.outcome === "failed") this.summary.failures.push(named);
    }
  }

  /** A record the source holds that the import does not carry over (`what`: "WordPress pages"). */
  leaveOut(what: string): void {
    this.summary.leftOut[what] = (this.summary.leftOut[what] ?? 0) + 1;
  }

  addMediaBytes(bytes: number): void {
    this.summary.mediaBytes += bytes;
  }

  /** Records handled so far. */
  get done(): number {
    const { created, updated, skipped, conflict, failed } = this.summary.totals;
    return created + updated + skipped + conflict + failed;
  }

  finish(): ImportSummary {
    return { ...this.summary, durationMs: Date.now() - this.started };
  }
}
