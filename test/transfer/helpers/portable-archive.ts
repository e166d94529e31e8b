// A portable archive (src/transfer/format.ts) written from lines given by the test: what an archive
// made by hand (or altered after export) looks like to an import. No media files.
import { writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { pack as createPack } from "tar-stream";
import { IMPORT_ORDER, type ImportKind } from "../../../src/content/import/import-records.ts";
import { FORMAT_NAME, FORMAT_VERSION } from "../../../src/transfer/format.ts";

export async function writePortableArchive(
  file: string,
  lines: Partial<Record<ImportKind, object[]>>,
  workspaceId = "source-ws",
  /** Version 1: an archive as exports before locales (issue 56) wrote it. */
  formatVersion = FORMAT_VERSION,
): Promise<void> {
  const tar = createPack();
  const counts = Object.fromEntries(Object.entries(lines).map(([kind, list]) => [kind, list?.length ?? 0]));
  const manifest = {
    format: FORMAT_NAME,
    formatVersion,
    exportedAt: new Date(0).toISOString(),
    workspace: { id: workspaceId, name: "Source", slug: "source" },
    counts,
    mediaBytes: 0,
  };
  const entries: [string, Buffer][] = [["manifest.json", Buffer.from(JSON.stringify(manifest))]];
  for (const kind of IMPORT_ORDER) {
    const list = lines[kind];
    if (list?.length)
      entries.push([
        `${kind}/000001.ndjson`,
        Buffer.from(`${list.map((line) => JSON.stringify(line)).join("\n")}\n`),
      ]);
  }
  for (const [name, content] of entries) tar.entry({ name, size: content.byteLength }, content);
  tar.finalize();
  const parts: Buffer[] = [];
  for await (const part of tar) parts.push(part as Buffer);
  writeFileSync(file, gzipSync(Buffer.concat(parts)));
}
