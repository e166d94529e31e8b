// Reads a portable archive (format.ts) as the import record stream (src/content/import/import-records.ts), in
// one pass: the manifest first (its format version is checked before any record), then each chunk's
// records, line by line as the chunk is decompressed; a media record is given out once its file's entry
// has arrived, with that entry as its stream (`open`), so the reader holds one line and no media file:
// the import streams the entry to storage. An archive is input from anywhere: a manifest, a line or a
// chunk beyond the format's bounds (format.ts) is refused as it streams, before it is held.
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract as createExtract } from "tar-stream";
import type { ImportedMedia, ImportKind, ImportRecord } from "../../content/import/import-records.ts";
import { ArchiveFormatError } from "../../domain/errors.ts";
import {
  CHUNK_RECORDS,
  FORMAT_NAME,
  FORMAT_VERSION,
  kindOfChunk,
  MANIFEST_ENTRY,
  MAX_LINE_BYTES,
  MAX_MANIFEST_BYTES,
  type Manifest,
  manifestSchema,
} from "../format.ts";
import { lineSchemas, type PortableLine } from "./portable-lines.ts";

async function readAll(stream: AsyncIterable<unknown>, { discard = false } = {}): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) if (!discard) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** The entry whole, refused (ArchiveFormatError) as soon as it grows past `maxBytes`. */
async function readBounded(entry: AsyncIterable<unknown>, name: string, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of entry) {
    size += (part as Buffer).byteLength;
    if (size > maxBytes) throw new ArchiveFormatError(`${name} is larger than ${maxBytes} bytes`);
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts);
}

export async function* archiveRecords(
  input: Readable,
  onManifest: (manifest: Manifest) => void = () => {},
): AsyncGenerator<ImportRecord> {
  const extract = createExtract();
  input
    .pipe(createGunzip())
    .on("error", (error) => extract.destroy(error))
    .pipe(extract);
  let manifest: Manifest | null = null;
  /** The media records of the last chunk whose file has not come yet, by entry name. */
  const waiting = new Map<string, PortableLine<"media">>();
  for await (const entry of extract) {
    const name = entry.header.name;
    if (name === MANIFEST_ENTRY) {
      manifest = parseManifest(await readBounded(entry, name, MAX_MANIFEST_BYTES));
      onManifest(manifest);
      continue;
    }
    if (!manifest)
      throw new ArchiveFormatError(`Not a ${FORMAT_NAME} archive: ${MANIFEST_ENTRY} must come first`);
    const held = waiting.get(name);
    if (held) {
      waiting.delete(name);
      let opened = false;
      yield mediaRecord(held, () => {
        opened = true;
        return Readable.from(entry);
      });
      // A record whose file was not wanted (unchanged since the last run, a dry run, too large): skipped.
      if (!opened) await readAll(entry, { discard: true });
      continue;
    }
    const kind = kindOfChunk(name);
    if (!kind) {
      entry.resume();
      continue;
    }
    if (waiting.size > 0) throw missingFiles(waiting);
    for await (const line of chunkLines(kind, name, entry))
      if (kind === "media") {
        const media = line as PortableLine<"media">;
        waiting.set(media.file, media);
      } else yield recordOf(kind, line);
  }
  if (!manifest) throw new ArchiveFormatError(`Not a ${FORMAT_NAME} archive: no ${MANIFEST_ENTRY}`);
  if (waiting.size > 0) throw missingFiles(waiting);
}

function parseManifest(text: Buffer): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text.toString("utf8"));
  } catch (error) {
    throw new ArchiveFormatError(
      `Not a ${FORMAT_NAME} archive: ${MANIFEST_ENTRY}: ${(error as Error).message}`,
    );
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new ArchiveFormatError(`Not a ${FORMAT_NAME} archive: ${parsed.error.message}`);
  if (parsed.data.formatVersion > FORMAT_VERSION)
    throw new ArchiveFormatError(
      `The archive is format version ${parsed.data.formatVersion}; this version reads up to ${FORMAT_VERSION}`,
    );
  return parsed.data;
}

/**
 * A chunk's records, each parsed as its line arrives: only the current line is held (a chunk of posts
 * with their revisions is megabytes of text, several times that as objects), and a line longer than
 * MAX_LINE_BYTES or a chunk of more than CHUNK_RECORDS lines is refused before it is read further.
 */
async function* chunkLines(
  kind: ImportKind,
  entryName: string,
  entry: AsyncIterable<unknown>,
): AsyncGenerator<unknown> {
  let number = 0;
  const parse = (bytes: Buffer) => {
    number += 1;
    if (number > CHUNK_RECORDS)
      throw new ArchiveFormatError(
        `${entryName} has more than ${CHUNK_RECORDS} lines: a chunk holds at most ${CHUNK_RECORDS} records, one a line`,
      );
    const text = bytes.toString("utf8");
    return text.trim() ? parseLine(kind, entryName, number, text) : undefined;
  };
  const tooLong = () =>
    new ArchiveFormatError(
      `${entryName} line ${number + 1} is longer than ${MAX_LINE_BYTES} bytes, the longest line an import reads`,
    );
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const part of entry) {
    let chunk = part as Buffer;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10)) {
      if (pendingBytes + end > MAX_LINE_BYTES) throw tooLong();
      const line = parse(Buffer.concat([...pending, chunk.subarray(0, end)]));
      pending = [];
      pendingBytes = 0;
      chunk = chunk.subarray(end + 1);
      if (line !== undefined) yield line;
    }
    pendingBytes += chunk.byteLength;
    if (pendingBytes > MAX_LINE_BYTES) throw tooLong();
    if (chunk.byteLength > 0) pending.push(chunk);
  }
  if (pendingBytes > 0) {
    const line = parse(Buffer.concat(pending));
    if (line !== undefined) yield line;
  }
}

function parseLine(kind: ImportKind, entryName: string, number: number, text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ArchiveFormatError(`${entryName} line ${number}: ${(error as Error).message}`);
  }
  const parsed = lineSchemas[kind].safeParse(json);
  if (!parsed.success) throw new ArchiveFormatError(`${entryName} line ${number}: ${parsed.error.message}`);
  return parsed.data;
}

function recordOf(kind: Exclude<ImportKind, "media">, line: unknown): ImportRecord {
  const { id, ...rest } = line as { id: string };
  return { ...rest, kind, sourceId: id } as ImportRecord;
}

/** The media record of `line`, whose bytes are `open()`'s stream (or `load()`, read whole from it). */
function mediaRecord(line: PortableLine<"media">, open: () => Readable): ImportedMedia {
  const { id, file: _file, ...rest } = line;
  return {
    ...rest,
    kind: "media",
    sourceId: id,
    open,
    load: async () => new Uint8Array(await readAll(open())),
  };
}

function missingFiles(waiting: Map<string, unknown>): ArchiveFormatError {
  return new ArchiveFormatError(
    `Media files missing from the archive: ${[...waiting.keys()].slice(0, 5).join(", ")}`,
  );
}
