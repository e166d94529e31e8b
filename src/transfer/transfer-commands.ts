// The export and import commands (the CLI's, and the admin API's export), over a database and the
// configured media storage: what they read, where they write, and the summary they answer with.
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { storedMediaReference } from "../media/media-references.ts";
import type { MediaStorage } from "../media/storage.ts";
import { type ExportSummary, exportWorkspace } from "./export/export-workspace.ts";
import { runImport } from "./import-run.ts";
import type { ImportSummary } from "./import-summary.ts";
import type { ProgressReporter } from "./progress.ts";
import type { RemoteAccess } from "./remote-fetch.ts";
import { openImportSource, type SourceRequest } from "./sources/import-source.ts";

export interface TransferContext {
  db: Database;
  config: Config;
  storage: MediaStorage;
  progress?: ProgressReporter;
  /** Ends an import's fetches and source reads at once: whoever asked for it has gone. */
  signal?: AbortSignal;
  /** Tests only: a stubbed DNS answer, and where a connection to the address it gave goes. */
  network?: Pick<RemoteAccess, "resolve" | "connect">;
}

export interface WorkspaceRef {
  id: string;
  name: string;
  slug: string;
}

export async function exportToStream(
  context: TransferContext,
  workspace: WorkspaceRef,
  out: Writable,
): Promise<ExportSummary> {
  return exportWorkspace(
    { prisma: context.db.prisma, storage: context.storage, workspace },
    out,
    (kind, written, total) => context.progress?.update(kind, written, total),
  ).finally(() => context.progress?.stop());
}

/** Writes the archive next to `file` first and renames it at the end: a failed export leaves no half file. */
export async function exportToFile(
  context: TransferContext,
  workspace: WorkspaceRef,
  file: string,
): Promise<ExportSummary & { file: string }> {
  const partial = `${file}.partial`;
  try {
    const summary = await exportToStream(context, workspace, createWriteStream(partial));
    await rename(partial, file);
    return { ...summary, file };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

export interface ImportFlags {
  dryRun: boolean;
  webhooks: boolean;
  batchSize?: number;
  /** false: leave the planner statistics to the caller (ImportOptions.analyze). */
  analyze?: boolean;
  /** false: media named by URL are not fetched (`--no-remote-media`, ImportOptions.remoteMedia). */
  remoteMedia?: boolean;
}

export async function importInto(
  context: TransferContext,
  workspace: WorkspaceRef,
  request: SourceRequest,
  flags: ImportFlags,
): Promise<ImportSummary & { origin: string }> {
  const remote: RemoteAccess = {
    ...context.config.imports.fetch,
    ...context.network,
    ...(context.signal ? { signal: context.signal } : {}),
  };
  const source = await openImportSource(request, {
    remote,
    maxPages: context.config.imports.source.maxPages,
    maxPageBytes: context.config.imports.source.maxPageBytes,
  });
  try {
    const summary = await runImport(source.records, {
      db: context.db,
      storage: context.storage,
      mediaReference: (key) =>
        storedMediaReference(context.config, (stored) => context.storage.urlFor(stored), key),
      workspaceId: workspace.id,
      origin: source.origin,
      dryRun: flags.dryRun,
      webhooks: flags.webhooks,
      maxMediaBytes: context.config.media.maxBytes,
      remote,
      webhookPolicy: { allowPrivate: context.config.webhooks.allowPrivateTargets },
      ...(flags.batchSize ? { batchSize: flags.batchSize } : {}),
      ...(flags.analyze === false ? { analyze: false } : {}),
      ...(flags.remoteMedia === false ? { remoteMedia: false } : {}),
      onBatch: (kind, _results, done) => context.progress?.update(kind, done, source.total),
    });
    return { origin: source.origin, ...summary };
  } finally {
    context.progress?.stop();
  }
}
