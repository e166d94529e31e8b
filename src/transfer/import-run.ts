// The one import path: whatever the source (a portable archive, Ghost, WordPress, a markdown folder, a
// /v1 API), its records (src/content/import/import-records.ts) arrive here in IMPORT_ORDER and are written in
// batches of one kind, each batch one transaction through the one writer (src/content/import/import-batch.ts).
// A media record's file is stored when the record arrives (and discarded again if its batch fails or
// does not use it), so a batch never holds more than its records' metadata. Records the ledger already
// has unchanged cost neither bytes nor writes: a second run changes nothing, and a run after a crash
// passes quickly over what the crashed one committed. After a real run ANALYZE refreshes the touched
// tables' statistics (analyzeStaleTables, src/db/planner-statistics.ts), here or, when the caller says
// so (`analyze: false`), in the caller: the CLI on the embedded store (cli/main.ts).
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  alreadyImported,
  type ImportTarget,
  importBatch,
  labelOf,
  type PreparedRecord,
  type RecordResult,
} from "../content/import/import-batch.ts";
import { fingerprintOf } from "../content/import/import-ledger.ts";
import { ImportLinks } from "../content/import/import-links.ts";
import {
  type ImportedMedia,
  type ImportKind,
  isLeftOut,
  isRejected,
  type SourceRecord,
} from "../content/import/import-records.ts";
import type { Database } from "../db/database.ts";
import { analyzeStaleTables } from "../db/planner-statistics.ts";
import { contentHashOf, contentHashOfFile } from "../media/content-hash.ts";
import {
  discardStoredMedia,
  ingestMedia,
  ingestMediaFile,
  inspectMedia,
  inspectMediaFile,
} from "../media/ingest.ts";
import type { MediaStorage } from "../media/storage.ts";
import { UploadTooLargeError } from "../media/upload-errors.ts";
import type { TargetPolicy } from "../webhooks/target-safety.ts";
import { type ImportSummary, SummaryTally } from "./import-summary.ts";
import { fetchBody, type RemoteAccess } from "./remote-fetch.ts";

export interface ImportOptions {
  db: Database;
  storage: MediaStorage;
  /** What a body, cover or author image stores for an imported file (media-references.ts). */
  mediaReference(storageKey: string): string;
  workspaceId: string;
  /** Names the source in the ledger: the same origin twice is the same import, resumed or repeated. */
  origin: string;
  dryRun?: boolean;
  /** false: the import's events are logged but sent to no webhook endpoint. */
  webhooks?: boolean;
  /** Records per transaction. */
  batchSize?: number;
  /** Media files above this size are refused (MEDIA_MAX_BYTES); a fetched one is cut off there. */
  maxMediaBytes: number;
  /** How media files named by URL are fetched (config.imports.fetch); its signal also ends the import. */
  remote: RemoteAccess;
  /**
   * false (`--no-remote-media`): media files named by URL are not fetched; the posts, covers and author
   * images that name them keep the source's URL, and the summary counts them under `leftOut`.
   */
  remoteMedia?: boolean;
  /** Whether imported webhook endpoints may target private addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  webhookPolicy: TargetPolicy;
  /**
   * false: the tables' planner statistics are left to the caller, which refreshes them itself
   * (analyzeStaleTables). The CLI on the embedded store does so in a worker of its own once the
   * import's has ended (cli/main.ts), so ANALYZE's sample rows are not added to the import's peak.
   */
  analyze?: boolean;
  /** After each batch: what the progress bar or log line shows. */
  onBatch?: (kind: ImportKind, results: readonly RecordResult[], done: number) => void;
}

export const DEFAULT_BATCH_SIZE = 100;

/** How the summary counts the media files `--no-remote-media` did not fetch. */
export const MEDIA_NOT_FETCHED = "media files not fetched (--no-remote-media; their URLs are kept)";

export async function runImport(
  records: AsyncIterable<SourceRecord>,
  options: ImportOptions,
): Promise<ImportSummary> {
  const dryRun = options.dryRun ?? false;
  const tally = new SummaryTally(dryRun);
  const target: ImportTarget = {
    prisma: options.db.prisma,
    workspaceId: options.workspaceId,
    origin: options.origin,
    webhooks: options.webhooks ?? true,
    dryRun,
    links: new ImportLinks(),
    webhookPolicy: options.webhookPolicy,
    mediaReference: (key) => options.mediaReference(key),
  };
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  let batch: PreparedRecord[] = [];
  let batchKind: ImportKind | null = null;

  const flush = async () => {
    if (!batchKind || batch.length === 0) return;
    const kind = batchKind;
    const pending = batch;
    batch = [];
    let results: RecordResult[];
    try {
      results = await importBatch(target, kind, pending);
    } catch (error) {
      await discardStored(options.storage, pending);
      throw error;
    }
    // Files stored for records the batch did not write (a conflict, a failure) are not kept.
    await discardStored(
      options.storage,
      pending.filter((_, index) => results[index]?.outcome !== "created"),
    );
    tally.add(results);
    options.onBatch?.(kind, results, tally.done);
  };

  const spool = new Spool();
  const seen = new SeenRecords();
  // The content hashes of the files this run has stored: a later record with the same bytes, in the
  // same batch (not yet committed), is not stored again either.
  const contents = new Set<string>();
  try {
    for await (const record of records) {
      // Abandoned (the CLI that asked went away): no further record, nothing of the pending batch.
      options.remote.signal?.throwIfAborted();
      if (isLeftOut(record)) {
        tally.leaveOut(record.leftOut);
        continue;
      }
      // What the source could not convert, and a repeated id, are failed records; the rest goes on.
      const refused = isRejected(record)
        ? { label: record.label, reason: record.rejected }
        : { label: labelOf(record), reason: seen.duplicate(record.kind, record.sourceId) };
      if (isRejected(record) || refused.reason !== null) {
        const { kind, sourceId } = record;
        tally.add([
          { kind, sourceId, label: refused.label, outcome: "failed", reason: refused.reason ?? "" },
        ]);
        continue;
      }
      if (record.kind !== batchKind) {
        await flush();
        batchKind = record.kind;
      }
      const fingerprint = fingerprintOf(record);
      const prepared: PreparedRecord = { record, fingerprint };
      if (record.kind === "media") {
        const stored = await prepareMedia(target, options, prepared, tally, { spool, contents });
        if (stored === "failed" || stored === "left out") continue;
        // The file is in storage (or not needed): the batch keeps the record's metadata, not its bytes,
        // or a batch of 100 media files would hold them all in memory until its transaction.
        prepared.record = withoutBytes(record);
      }
      batch.push(prepared);
      if (batch.length >= batchSize) await flush();
    }
  } catch (error) {
    // The source failed or the import was abandoned: the pending batch is never written, nor its files kept.
    await discardStored(options.storage, batch);
    throw error;
  } finally {
    await spool.remove();
  }
  await flush();
  // The statistics of the tables the import grew, now rather than at the service's next check.
  if (!dryRun && tally.done > 0 && options.analyze !== false) await analyzeStaleTables(options.db);
  return tally.finish();
}

/**
 * The source ids a run has met, by kind. The ledger keeps one row per source id: a second record with
 * an id already seen would take over the first one's row (its target), and the next run would find the
 * first record "new" again and report it as a conflict with itself. The second is refused instead.
 */
class SeenRecords {
  private readonly ids = new Map<ImportKind, Set<string>>();

  /** Why the record cannot be imported when its id came before in this run, else null. */
  duplicate(kind: ImportKind, sourceId: string): string | null {
    const ids = this.ids.get(kind) ?? new Set<string>();
    this.ids.set(kind, ids);
    if (ids.has(sourceId)) return `another ${kind} of the source has the same id "${sourceId}"`;
    ids.add(sourceId);
    return null;
  }
}

/** A media record whose bytes are no longer held (an archive's reader gives them with the record). */
function withoutBytes({ open: _stream, ...record }: ImportedMedia): ImportedMedia {
  return {
    ...record,
    load: () => Promise.reject(new Error(`${record.name}: its bytes were stored and released`)),
  };
}

/**
 * Stores a media record's file unless the ledger has the record unchanged (a dry run reads and checks
 * it, storing nothing).
 * A file that cannot be read is a failed record, reported, and the import goes on.
 */
async function prepareMedia(
  target: ImportTarget,
  options: ImportOptions,
  prepared: PreparedRecord,
  tally: SummaryTally,
  { spool, contents }: { spool: Spool; contents: Set<string> },
): Promise<"stored" | "not needed" | "failed" | "left out"> {
  const record = prepared.record;
  if (record.kind !== "media") return "not needed";
  if (options.remoteMedia === false && !record.open && !record.load) {
    tally.leaveOut(MEDIA_NOT_FETCHED);
    return "left out";
  }
  const unchanged = await alreadyImported(target, "media", [
    { sourceId: record.sourceId, fingerprint: prepared.fingerprint },
  ]);
  if (unchanged.size > 0) return "not needed";
  // A dry run reads, checks and hashes each file as the real run does and only leaves out storing it:
  // a file the workspace has already (or one the run met before) is then counted as skipped, and one
  // that cannot be read as failed, as the real run counts them (the issue: equal counts).
  const limit = { maxBytes: options.maxMediaBytes };
  try {
    if (record.open) {
      // Streamed: the archive's entry to a temporary file (detection and the image probe read a file,
      // not a buffer), then the file to storage; the file never is one buffer in memory.
      if ((record.size ?? 0) > limit.maxBytes) throw new UploadTooLargeError(limit.maxBytes);
      const file = await spool.take(record.open(), limit.maxBytes);
      try {
        prepared.contentHash = await contentHashOfFile(file);
        if (await knownContent(target, contents, prepared.contentHash)) return "not needed";
        if (target.dryRun) {
          tally.addMediaBytes((await inspectMediaFile(file, limit.maxBytes, prepared.contentHash)).size);
        } else {
          prepared.media = await ingestMediaFile({
            storage: options.storage,
            workspaceId: target.workspaceId,
            file,
            contentHash: prepared.contentHash,
            filename: record.name,
            ...limit,
          });
          tally.addMediaBytes(prepared.media.size);
        }
        contents.add(prepared.contentHash);
        return "stored";
      } finally {
        await rm(file, { force: true });
      }
    }
    const bytes = record.load
      ? await record.load()
      : await fetchBody(options.remote, { url: record.url, maxBytes: options.maxMediaBytes });
    prepared.contentHash = contentHashOf(bytes);
    if (await knownContent(target, contents, prepared.contentHash)) return "not needed";
    if (target.dryRun) await inspectMedia(bytes, limit.maxBytes);
    else
      prepared.media = await ingestMedia({
        storage: options.storage,
        workspaceId: target.workspaceId,
        bytes,
        filename: record.name,
        ...limit,
      });
    contents.add(prepared.contentHash);
    tally.addMediaBytes(bytes.byteLength);
    return "stored";
  } catch (error) {
    if (options.remote.signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    tally.add([
      { kind: "media", sourceId: record.sourceId, label: labelOf(record), outcome: "failed", reason },
    ]);
    return "failed";
  }
}

/**
 * Whether a file with these bytes is stored already: by this run (maybe in the batch still pending) or
 * before, as a media record of the workspace. The record is then written to point at that one
 * (import-writes.ts) and its file is not stored.
 */
async function knownContent(target: ImportTarget, contents: Set<string>, hash: string): Promise<boolean> {
  if (contents.has(hash)) return true;
  const row = await target.prisma.media.findFirst({
    where: { workspaceId: target.workspaceId, contentHash: hash },
    select: { id: true },
  });
  return row !== null;
}

/**
 * Where streamed media files wait between the source and storage: one temporary folder per import,
 * made when the first file comes and removed at the end, holding one file at a time.
 */
class Spool {
  private dir: string | null = null;
  private count = 0;

  /**
   * Writes `stream` to a new file of the folder and answers its path. A stream above `maxBytes` is read
   * to its end (the source goes on with the next record) but not kept: UploadTooLargeError.
   */
  async take(stream: Readable, maxBytes?: number): Promise<string> {
    this.dir ??= await mkdtemp(path.join(tmpdir(), "content-import-"));
    this.count += 1;
    const file = path.join(this.dir, String(this.count));
    let size = 0;
    const bounded = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.byteLength;
        done(null, maxBytes !== undefined && size > maxBytes ? undefined : chunk);
      },
    });
    try {
      await pipeline(stream, bounded, createWriteStream(file, { flags: "wx" }));
      if (maxBytes !== undefined && size > maxBytes) throw new UploadTooLargeError(maxBytes);
      return file;
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
  }

  async remove(): Promise<void> {
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

async function discardStored(storage: MediaStorage, prepared: readonly PreparedRecord[]): Promise<void> {
  for (const { media } of prepared) if (media) await discardStoredMedia(storage, media.storageKey);
}
