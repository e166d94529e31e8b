// Writes a workspace to the portable format (format.ts) as a gzipped tar stream into `out` (a file, an
// HTTP response). Streamed end to end: one chunk of records and one media file are in flight at a
// time, and a slow `out` slows the reading (backpressure through tar-stream and gzip).

import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { pack as createPack, type Pack } from "tar-stream";
import type { ImportKind } from "../../content/import/import-records.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { MediaStorage } from "../../media/storage.ts";
import {
  CHUNK_RECORDS,
  chunkEntryName,
  FORMAT_NAME,
  FORMAT_VERSION,
  MANIFEST_ENTRY,
  type Manifest,
} from "../format.ts";
import { openMediaBytes } from "./media-bytes.ts";
import {
  authorLines,
  countRecords,
  fieldLines,
  localeLines,
  mediaLines,
  postLines,
  taxonomyLines,
  webhookLines,
} from "./workspace-lines.ts";

export interface ExportSource {
  prisma: PrismaClient;
  storage: MediaStorage;
  workspace: { id: string; name: string; slug: string };
}

export interface ExportSummary {
  counts: Record<ImportKind, number>;
  mediaBytes: number;
  durationMs: number;
}

/** Called after each chunk is written: what the CLI's progress shows. */
export type ExportProgress = (kind: ImportKind, written: number, total: number) => void;

export async function exportWorkspace(
  source: ExportSource,
  out: Writable,
  onChunk: ExportProgress = () => {},
): Promise<ExportSummary> {
  const started = Date.now();
  const { prisma, storage, workspace } = source;
  const totals = await countRecords(prisma, workspace.id);
  const mediaBytes = await prisma.media.aggregate({
    where: { workspaceId: workspace.id },
    _sum: { size: true },
  });
  const manifest: Manifest = {
    format: FORMAT_NAME,
    formatVersion: FORMAT_VERSION,
    exportedAt: new Date().toISOString(),
    // Only these: whatever else the caller's workspace object holds (keys, say) stays out of the file.
    workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
    counts: totals,
    mediaBytes: mediaBytes._sum.size ?? 0,
  };
  const tar = createPack();
  const written = pipeline(tar, createGzip(), out);
  const counts: Record<ImportKind, number> = {
    locale: 0,
    category: 0,
    tag: 0,
    author: 0,
    field: 0,
    media: 0,
    post: 0,
    webhook: 0,
  };
  let bytes = 0;
  try {
    await addEntry(tar, MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    const writeKind = async <Line extends object>(
      kind: ImportKind,
      lines: AsyncIterable<Line>,
      after?: (chunk: Line[]) => Promise<void>,
    ) => {
      let chunk: Line[] = [];
      let index = 0;
      const flush = async () => {
        if (chunk.length === 0) return;
        index += 1;
        const text = chunk.map((line) => JSON.stringify(line)).join("\n");
        await addEntry(tar, chunkEntryName(kind, index), Buffer.from(`${text}\n`));
        await after?.(chunk);
        counts[kind] += chunk.length;
        onChunk(kind, counts[kind], totals[kind]);
        chunk = [];
      };
      for await (const line of lines) {
        chunk.push(line);
        if (chunk.length >= CHUNK_RECORDS) await flush();
      }
      await flush();
    };
    await writeKind("locale", localeLines(prisma, workspace.id));
    await writeKind("category", taxonomyLines(prisma, workspace.id, "category"));
    await writeKind("tag", taxonomyLines(prisma, workspace.id, "tag"));
    await writeKind(
      "media",
      (async function* () {
        for await (const { storageKey, ...line } of mediaLines(prisma, storage, workspace.id))
          yield { ...line, storageKey };
      })(),
      async (chunk) => {
        // Each file right after the chunk that lists it: the importer pairs them holding one chunk.
        for (const line of chunk) {
          const file = await openMediaBytes(storage, line.storageKey);
          const entry = tar.entry({ name: line.file, size: file.size });
          await pipeline(file.stream, entry);
          bytes += file.size;
        }
      },
    );
    // After the media: an author's image is rewritten to the imported file as it is written.
    await writeKind("author", authorLines(prisma, storage, workspace.id));
    await writeKind("field", fieldLines(prisma, workspace.id));
    await writeKind("post", postLines(prisma, storage, workspace.id));
    await writeKind("webhook", webhookLines(prisma, workspace.id));
    tar.finalize();
  } catch (error) {
    tar.destroy(error as Error);
    await written.catch(() => {});
    throw error;
  }
  await written;
  return { counts, mediaBytes: bytes, durationMs: Date.now() - started };
}

/**
 * Adds a chunk (at most CHUNK_RECORDS records) through an entry stream, like a media file: the entry
 * takes it only as fast as gzip and `out` read, so a slow reader holds the export back instead of
 * letting chunks pile up in memory.
 */
async function addEntry(tar: Pack, name: string, content: Buffer): Promise<void> {
  await pipeline(Readable.from([content]), tar.entry({ name, size: content.length }));
}
