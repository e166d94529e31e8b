// The archive reader hands each media record its file as a stream (the import never holds a file in
// memory): the stream gives the entry's exact bytes, and a record whose stream is never opened (an
// unchanged record, a dry run, a file above the size limit) has its entry skipped, the next record
// coming as usual.
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { pack as createPack } from "tar-stream";
import { describe, expect, it } from "vitest";
import type { ImportRecord } from "../../src/content/import-records.ts";
import { archiveRecords } from "../../src/transfer/archive/archive-records.ts";
import { FORMAT_NAME, FORMAT_VERSION } from "../../src/transfer/format.ts";

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
