// Reads a portable archive (format.ts) as the import record stream (src/content/import-records.ts), in
// one pass: the manifest first (its format version is checked before any record), then each chunk's
// records; a media record is given out once its file's entry has arrived, with that entry as its stream
// (`open`), so the reader holds one chunk and no media file: the import streams the entry to storage.
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract as createExtract } from "tar-stream";
import type { ImportedMedia, ImportKind, ImportRecord } from "../../content/import-records.ts";
import { ArchiveFormatError } from "../../domain/errors.ts";
import {
  FORMAT_NAME,
  FORMAT_VERSION,
  kindOfChunk,
  MANIFEST_ENTRY,
  type Manifest,
  manifestSchema,
} from "../format.ts";
import { lineSchemas, type PortableLine } from "./portable-lines.ts";

async function readAll(stream: AsyncIterable<unknown>, { discard = false } = {}): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) if (!discard) parts.push(part as Buffer);
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
      manifest = parseManifest(await readAll(entry));
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
    const lines = parseChunk(kind, name, (await readAll(entry)).toString("utf8"));
    if (kind === "media")
      for (const line of lines as Iterable<PortableLine<"media">>) waiting.set(line.file, line);
    else for (const line of lines) yield recordOf(kind, line);
  }
  if (!manifest) throw new ArchiveFormatError(`Not a ${FORMAT_NAME} archive: no ${MANIFEST_ENTRY}`);
  if (waiting.size > 0) throw missingFiles(waiting);
}

function parseManifest(text: Buffer): Manifest {
  const parsed = manifestSchema.safeParse(JSON.parse(text.toString("utf8")));
  if (!parsed.success) throw new ArchiveFormatError(`Not a ${FORMAT_NAME} archive: ${parsed.error.message}`);
  if (parsed.data.formatVersion > FORMAT_VERSION)
    throw new ArchiveFormatError(
      `The archive is format version ${parsed.data.formatVersion}; this version reads up to ${FORMAT_VERSION}`,
    );
  return parsed.data;
}

/**
 * A chunk's records, each parsed when it is asked for: a chunk of posts with their revisions is a few
 * megabytes of text but several times that as objects, and the import batches fewer records than a
 * chunk holds, so only the batch's records are ever objects at once.
 */
function* parseChunk(kind: ImportKind, entryName: string, text: string): Generator<unknown> {
  let index = 0;
  for (const line of text.split("\n")) {
    index += 1;
    if (!line.trim()) continue;
    const parsed = lineSchemas[kind].safeParse(JSON.parse(line));
    if (!parsed.success) throw new ArchiveFormatError(`${entryName} line ${index}: ${parsed.error.message}`);
    yield parsed.data;
  }
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
