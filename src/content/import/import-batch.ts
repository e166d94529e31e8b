// One batch of an import (src/transfer/import-run.ts), all of one kind, through the one writer: one
// transaction for the records, their ledger rows (import-ledger.ts) and their events, so a crash leaves
// a batch either whole or absent, and a record is never half imported. Each record is decided inside the
// transaction: `skipped` (imported before from the same source record), `updated` (imported before, the
// source changed since), `created`, `conflict` (its slug or key belongs to another record of the
// workspace: left alone, reported) or `failed` (it references something the workspace lacks).
// A dry run decides the same way on the app's client and writes nothing.

import { withholdDeliveries } from "../deliveries/withheld-deliveries.ts";
import { type UnitOfWork, write } from "../writer.ts";
import { type LedgerEntry, ledgerEntries, recordInLedger } from "./import-ledger.ts";
import type { ImportKind, ImportOutcome, ImportRecord } from "./import-records.ts";
import type { ImportTarget, PreparedRecord } from "./import-target.ts";
import { type Written, writeImportedRecord } from "./import-writes.ts";

export type { ImportTarget, PreparedRecord } from "./import-target.ts";

export interface RecordResult {
  kind: ImportKind;
  sourceId: string;
  /** The slug (a field's key, a media's or webhook's URL): how the summary names it. */
  label: string;
  outcome: ImportOutcome;
  reason?: string;
}

/** Which records the ledger already has unchanged: they need no media bytes and no write. */
export async function alreadyImported(
  target: ImportTarget,
  kind: ImportKind,
  records: readonly { sourceId: string; fingerprint: string }[],
): Promise<Map<string, LedgerEntry>> {
  const entries = await ledgerEntries(
    target.prisma,
    target,
    kind,
    records.map((record) => record.sourceId),
  );
  const unchanged = new Map<string, LedgerEntry>();
  for (const record of records) {
    const entry = entries.get(record.sourceId);
    if (entry?.fingerprint === record.fingerprint) unchanged.set(record.sourceId, entry);
  }
  return unchanged;
}

export function labelOf(record: ImportRecord): string {
  switch (record.kind) {
    case "field":
      return record.key;
    case "locale":
      return record.code;
    case "media":
    case "webhook":
      return record.url;
    default:
      return record.slug;
  }
}

export async function importBatch(
  target: ImportTarget,
  kind: ImportKind,
  batch: readonly PreparedRecord[],
): Promise<RecordResult[]> {
  if (target.dryRun) return decideAll(target, kind, batch, null);
  return write(
    target.prisma,
    (uow) => decideAll(target, kind, batch, uow),
    target.webhooks ? {} : { afterAppend: withholdDeliveries },
  );
}

async function decideAll(
  target: ImportTarget,
  kind: ImportKind,
  batch: readonly PreparedRecord[],
  uow: UnitOfWork | null,
): Promise<RecordResult[]> {
  const client = uow?.tx ?? target.prisma;
  const ledger = await ledgerEntries(
    client,
    target,
    kind,
    batch.map(({ record }) => record.sourceId),
  );
  const results: RecordResult[] = [];
  for (const prepared of batch) {
    const { record, fingerprint } = prepared;
    const entry = ledger.get(record.sourceId);
    const result = { kind, sourceId: record.sourceId, label: labelOf(record) };
    const written: Written = await writeImportedRecord(client, uow, target, prepared, entry ?? null);
    if (written.outcome === "created" || written.outcome === "updated" || written.outcome === "skipped") {
      if (written.targetId && uow && (written.outcome !== "skipped" || written.shared))
        await recordInLedger(uow.tx, target, kind, {
          sourceId: record.sourceId,
          targetId: written.targetId,
          fingerprint,
        });
    }
    results.push({
      ...result,
      outcome: written.outcome,
      ...(written.reason ? { reason: written.reason } : {}),
    });
  }
  return results;
}
