// Archives beyond the format's bounds, made as they are compressed (never whole in memory before
// gzip): a record chunk of hundreds of megabytes of newlines in a few hundred kilobytes, a single line
// longer than an import reads, a manifest above its cap. Shared by the archive reader's tests and the
// hostile-imports bench, which sends them to a running server.
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { pack as createPack } from "tar-stream";
import { FORMAT_NAME, FORMAT_VERSION } from "../../../src/transfer/format.ts";

/** A valid manifest announcing one tag. */
export const BOMB_MANIFEST = Buffer.from(
  JSON.stringify({
    format: FORMAT_NAME,
    formatVersion: FORMAT_VERSION,
    exportedAt: new Date(0).toISOString(),
    workspace: { id: "w", name: "W", slug: "w" },
    counts: { tag: 1 },
    mediaBytes: 0,
  }),
);

/** The manifest above padded past `bytes` with a field of x's (still valid JSON). */
export function paddedManifest(bytes: number): Buffer {
  return Buffer.concat([BOMB_MANIFEST.subarray(0, -1), Buffer.from(`,"x":"${"x".repeat(bytes)}"}`)]);
}

/** A .tar.gz whose entry `name` is `size` bytes of `fill`, compressed as it is made (never whole in memory). */
export async function archiveBomb(
  name: string,
  fill: number,
  size: number,
  manifest: Buffer = BOMB_MANIFEST,
): Promise<Buffer> {
  const tar = createPack();
  tar.entry({ name: "manifest.json", size: manifest.byteLength }, manifest);
  const entry = tar.entry({ name, size });
  const block = Buffer.alloc(1024 * 1024, fill);
  const parts: Buffer[] = [];
  const written = (async () => {
    for (let left = size; left > 0; left -= block.byteLength) {
      const part = left >= block.byteLength ? block : block.subarray(0, left);
      if (!entry.write(part)) await new Promise<void>((resolve) => entry.once("drain", () => resolve()));
    }
    entry.end(() => {});
    tar.finalize();
  })();
  await Promise.all([
    written,
    pipeline(tar, createGzip(), async (gzipped: AsyncIterable<Buffer>) => {
      for await (const part of gzipped) parts.push(part);
    }),
  ]);
  return Buffer.concat(parts);
}
