// The import ledger (the ImportedRecord table): which source record became which record of the
// workspace, and the fingerprint of the source record it was written from. Read before a batch (to leave
// alone what is already imported unchanged, without even loading its media bytes) and written in the
// batch's own transaction (import-batch.ts), so a crash never leaves a record without its ledger row or
// the other way round: the next run resumes exactly after the last committed batch.
import { createHash } from "node:crypto";
import type { ReadClient, WriteClient } from "../writer.ts";
import type { ImportKind } from "./import-records.ts";

export interface LedgerEntry {
  sourceId: string;
  targetId: string;
  fingerprint: string;
}

export interface LedgerScope {
  workspaceId: string;
  origin: string;
}

/** SHA-256 of a record's JSON (functions, such as a media record's loader, are left out by JSON). */
export function fingerprintOf(record: object): string {
  return createHash("sha256").update(JSON.stringify(record)).digest("hex");
}

export async function ledgerEntries(
  client: ReadClient,
  scope: LedgerScope,
  kind: ImportKind,
  sourceIds: readonly string[],
): Promise<Map<string, LedgerEntry>> {
  const rows = await client.importedRecord.findMany({
    where: { workspaceId: scope.workspaceId, origin: scope.origin, kind, sourceId: { in: [...sourceIds] } },
    select: { sourceId: true, targetId: true, fingerprint: true },
  });
  return new Map(rows.map((row) => [row.sourceId, row]));
}

export async function recordInLedger(
  tx: WriteClient,
  scope: LedgerScope,
  kind: ImportKind,
  entry: LedgerEntry,
): Promise<void> {
  await tx.importedRecord.upsert({
    where: {
      workspaceId_origin_kind_sourceId: {
        workspaceId: scope.workspaceId,
        origin: scope.origin,
        kind,
        sourceId: entry.sourceId,
      },
    },
    create: { workspaceId: scope.workspaceId, origin: scope.origin, kind, ...entry },
    update: { targetId: entry.targetId, fingerprint: entry.fingerprint },
  });
}
