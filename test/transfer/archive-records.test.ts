// The archive reader hands each media record its file as a stream (the import never holds a file in
// memory): the stream gives the entry's exact bytes, and a record whose stream is never opened (an
// unchanged record, a dry run, a file above the size limit) has its entry skipped, the next record
// coming as usual.
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { pack as createPack } from "tar-stream";
import { describe, expect, it } from "vitest";
import type { ImportRecord } from "../../src/content/import/import-records.ts";
import { archiveRecords } from "../../src/transfer/archive/archive-records.ts";
import { FORMAT_NAME, FORMAT_VERSION, MAX_LINE_BYTES } from "../../src/transfer/format.ts";
import { archiveBomb, paddedManifest } from "./helpers/archive-bombs.ts";

const mediaLine = (id: string, size: number) => ({
  id,
  file: `media-files/ws/${id}.png`,
  url: `https://old.example.com/media/ws/${id}.png`,
  name: `${id}.png`,
  alt: null,
  size,
});

/** A small archive: manifest, one media chunk with two files, one tag chunk. */
async function archive(files: Buffer[]): Promise<Buffer> {
  const tar = createPack();
  const entries: [string, Buffer][] = [
    [
      "manifest.json",
      Buffer.from(
        JSON.stringify({
          format: FORMAT_NAME,
          formatVersion: FORMAT_VERSION,
          exportedAt: new Date(0).toISOString(),
          workspace: { id: "w", name: "W", slug: "w" },
          counts: { media: files.length, tag: 1 },
          mediaBytes: files.reduce((sum, file) => sum + file.byteLength, 0),
        }),
      ),
    ],
    [
      "media/000001.ndjson",
      Buffer.from(
        files.map((file, index) => JSON.stringify(mediaLine(`m${index}`, file.byteLength))).join("\n"),
      ),
    ],
    ...files.map((file, index): [string, Buffer] => [`media-files/ws/m${index}.png`, file]),
    [
      "tag/000001.ndjson",
      Buffer.from(JSON.stringify({ id: "t1", slug: "news", name: "News", description: null })),
    ],
  ];
  for (const [name, content] of entries) tar.entry({ name, size: content.byteLength }, content);
  tar.finalize();
  const parts: Buffer[] = [];
  for await (const part of tar) parts.push(part as Buffer);
  return gzipSync(Buffer.concat(parts));
}

describe("archiveRecords and media files", () => {
  it("streams each file's exact bytes, and skips the file of a record nobody opened", async () => {
    // Larger than one read of the gunzip stream, so the file comes in several chunks.
    const first = Buffer.alloc(300_000, 7);
    const second = Buffer.alloc(200_000, 9);
    const seen: { kind: string; sourceId: string; bytes?: number }[] = [];
    for await (const record of archiveRecords(Readable.from([await archive([first, second])]))) {
      const entry: (typeof seen)[number] = { kind: record.kind, sourceId: record.sourceId };
      if (record.kind === "media" && record.sourceId === "m0") {
        const chunks = await record.open!().toArray();
        const bytes = Buffer.concat(chunks);
        expect(bytes.equals(first)).toBe(true);
        expect(chunks.length).toBeGreaterThan(1);
        entry.bytes = bytes.byteLength;
      }
      seen.push(entry);
    }
    expect(seen).toEqual([
      { kind: "media", sourceId: "m0", bytes: 300_000 },
      { kind: "media", sourceId: "m1" },
      { kind: "tag", sourceId: "t1" },
    ]);
  });

  it("still loads a file whole for a consumer that asks for its bytes", async () => {
    const file = Buffer.from("not really a png");
    const records: ImportRecord[] = [];
    for await (const record of archiveRecords(Readable.from([await archive([file])]))) {
      if (record.kind === "media") expect(Buffer.from((await record.load?.()) ?? []).equals(file)).toBe(true);
      records.push(record);
    }
    expect(records.map((record) => record.kind)).toEqual(["media", "tag"]);
  });
});

async function readThrough(archive: Buffer): Promise<string[]> {
  const kinds: string[] = [];
  for await (const record of archiveRecords(Readable.from([archive]))) kinds.push(record.kind);
  return kinds;
}

// Issue 60, item 4: a 306 KB archive whose chunk is 300 MB of newlines aborted V8 ("invalid size
// error": the chunk was read whole and split); a chunk's lines are now read as they stream.
describe("archiveRecords and archives beyond the format's bounds", () => {
  it("refuses a gzip bomb of newlines in a record chunk as it streams, holding none of it", async () => {
    const archive = await archiveBomb("tag/000001.ndjson", 10, 300 * 1024 * 1024);
    expect(archive.byteLength).toBeLessThan(400 * 1024);
    const before = process.memoryUsage().rss;
    await expect(readThrough(archive)).rejects.toThrow(
      "tag/000001.ndjson has more than 200 lines: a chunk holds at most 200 records, one a line",
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  }, 60_000);

  it("refuses a line longer than MAX_LINE_BYTES before holding more of it", async () => {
    const archive = await archiveBomb("tag/000001.ndjson", 32, MAX_LINE_BYTES + 1024 * 1024);
    await expect(readThrough(archive)).rejects.toThrow(
      `tag/000001.ndjson line 1 is longer than ${MAX_LINE_BYTES} bytes, the longest line an import reads`,
    );
  }, 60_000);

  it("refuses a manifest above 1 MiB, and a line that is not JSON, with the entry and line", async () => {
    const padded = paddedManifest(1_100_000);
    await expect(readThrough(await archiveBomb("tag/000001.ndjson", 10, 1, padded))).rejects.toThrow(
      "manifest.json is larger than 1048576 bytes",
    );
    const notJson = await archiveBomb("tag/000001.ndjson", 123, 10);
    await expect(readThrough(notJson)).rejects.toThrow(/^tag\/000001\.ndjson line 1: /);
    await expect(readThrough(notJson)).rejects.toHaveProperty("name", "ArchiveFormatError");
  });
});
