// Where and how an import writes (import-batch.ts, import-writes.ts): the workspace, the ledger's
// origin, whether webhooks hear of it, and what the run has learned so far (import-links.ts).
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { IngestedMedia } from "../../media/ingest.ts";
import type { TargetPolicy } from "../../webhooks/target-safety.ts";
import type { LedgerScope } from "./import-ledger.ts";
import type { ImportLinks } from "./import-links.ts";
import type { ImportOutcome, ImportRecord } from "./import-records.ts";

/** A media file stored for a record about to be written (import-run.ts stores it before the batch). */
export type PreparedMedia = IngestedMedia;

export interface ImportTarget extends LedgerScope {
  prisma: PrismaClient;
  /** false: events are logged, but no webhook endpoint is sent them (writer.ts). */
  webhooks: boolean;
  dryRun: boolean;
  links: ImportLinks;
  /** Where imported webhook endpoints may point (WEBHOOK_ALLOW_PRIVATE_TARGETS), as for the API's. */
  webhookPolicy: TargetPolicy;
  /** What the records naming that object store (relative without PUBLIC_URL: media-references.ts). */
  mediaReference(storageKey: string): string;
}

/** A record with its fingerprint and, for media to write, the object already stored. */
export interface PreparedRecord {
  record: ImportRecord;
  fingerprint: string;
  media?: PreparedMedia;
  /** For media: the SHA-256 of its file (content-hash.ts), once read; `media` is unset when a record of the workspace has these bytes already. */
  contentHash?: string;
}

/** What writing one record did (import-writes.ts). */
export interface Written {
  outcome: ImportOutcome;
  targetId?: string;
  reason?: string;
  /** Skipped as the same record as one the workspace has (a media file's bytes, a locale's code): the ledger still remembers it. */
  shared?: true;
}
