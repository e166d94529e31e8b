// The portable export format, version 1: one .tar.gz holding
//
//   manifest.json                  format name and version, the source workspace, counts per kind
//   category/000001.ndjson …       the records, one JSON object a line, at most CHUNK_RECORDS a file,
//   tag/ author/ field/ media/ post/ webhook/   in IMPORT_ORDER (what a record references comes first)
//   media-files/<storage key>      each media file's bytes, right after the media chunk that lists it
//
// Chunks keep memory bounded on both sides: the exporter holds one chunk of records and one media file
// stream at a time, the importer one chunk and one media file. A line is the import record
// (src/content/import-records.ts) with `id` (the record's id in the source workspace) and, for media,
// `file` (its entry in the archive). Never in it: API keys, webhook secrets, delivery logs, events.
import { z } from "zod";
import type { ImportKind } from "../content/import-records.ts";

export const FORMAT_NAME = "content-gateway-export";
export const FORMAT_VERSION = 1;

/** Records per NDJSON chunk. */
export const CHUNK_RECORDS = 200;

export const MANIFEST_ENTRY = "manifest.json";
export const MEDIA_FILES_FOLDER = "media-files";

export const manifestSchema = z.object({
  format: z.literal(FORMAT_NAME),
  formatVersion: z.number().int(),
  exportedAt: z.string(),
  workspace: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
  /** Records per kind when the export started. */
  counts: z.record(z.string(), z.number().int()),
  /** Bytes of media files in the archive. */
  mediaBytes: z.number().int(),
});

export type Manifest = z.infer<typeof manifestSchema>;

export function chunkEntryName(kind: ImportKind, index: number): string {
  return `${kind}/${String(index).padStart(6, "0")}.ndjson`;
}

export function mediaFileEntryName(storageKey: string): string {
  return `${MEDIA_FILES_FOLDER}/${storageKey}`;
}

const CHUNK_ENTRY = /^(category|tag|author|field|media|post|webhook)\/\d{6}\.ndjson$/;

/** The kind of a chunk entry's records, or null for any other entry. */
export function kindOfChunk(name: string): ImportKind | null {
  return (CHUNK_ENTRY.exec(name)?.[1] as ImportKind | undefined) ?? null;
}
