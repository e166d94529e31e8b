// The portable export format, version 2: one .tar.gz holding
//
//   manifest.json                  format name and version, the source workspace, counts per kind
//   locale/000001.ndjson …         the records, one JSON object a line, at most CHUNK_RECORDS a file,
//   category/ tag/ media/ author/ field/ post/ webhook/   in IMPORT_ORDER (what a record references
//                                  comes first; archives written before media came first import as well)
//
// Version 2 (issue 56) adds the workspace's locales (`locale/`: code, name, default, fallback chain; a
// locale after those its chain names) and, on each post line, `locale` (the locale of its own fields,
// the workspace's default) and `translations` (the post in every other locale: slug, title,
// description, content, status, publishedAt, createdAt, updatedAt), and on each category, tag and author
// line `translations` (its name and description, an author's bio, in every other locale). Added later,
// optional (archives without them import, absent meaning none): `unpublishAt` on posts and translations,
// `locale` on each revision (the translation it is of), `localized` on fields and `fields` on each
// translation (its values of localized fields); docs/import-export.md. Version 1 archives have none of
// these and import as before: their posts are in the target's default locale.
//   media-files/<storage key>      each media file's bytes, right after the media chunk that lists it
//
// Chunks keep memory bounded on both sides: the exporter holds one chunk of records and one media file
// stream at a time, the importer one chunk and one media file. A line is the import record
// (src/content/import/import-records.ts) with `id` (the record's id in the source workspace) and, for media,
// `file` (its entry in the archive). Never in it: API keys, webhook secrets, delivery logs, events.
import { z } from "zod";
import type { ImportKind } from "../content/import/import-records.ts";

export const FORMAT_NAME = "content-gateway-export";
export const FORMAT_VERSION = 2;

/** Records per NDJSON chunk: a chunk of more lines than this is not one an export wrote. */
export const CHUNK_RECORDS = 200;

/**
 * The longest NDJSON line an import reads. A post's line is its body (at most 2,000,000 characters, as
 * the API accepts) and its revisions' snapshots; 64 MiB is several large posts with long histories.
 * Lines are read one at a time while the archive is decompressed, so neither a longer line nor a chunk
 * of more lines (300 MB of newlines gzip to 306 KB) is ever held: the archive is refused.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The largest manifest an import reads: it is a few hundred bytes. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

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

const CHUNK_ENTRY = /^(locale|category|tag|author|field|media|post|webhook)\/\d{6}\.ndjson$/;

/** The kind of a chunk entry's records, or null for any other entry. */
export function kindOfChunk(name: string): ImportKind | null {
  return (CHUNK_ENTRY.exec(name)?.[1] as ImportKind | undefined) ?? null;
}
