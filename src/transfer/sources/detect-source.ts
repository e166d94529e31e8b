// What an import source is, told from its content: an import without --from reads what it finds, and
// one whose --from does not fit its source says which one does, rather than an archive reader's
// "incorrect header check" and a stack trace for a WordPress file.
import { open, stat } from "node:fs/promises";
import type { SourceKind } from "./source-types.ts";

/** How a message names each kind of source. */
export const SOURCE_NAMES: Record<SourceKind, string> = {
  archive: "a portable archive (content-gateway export)",
  ghost: "a Ghost JSON export",
  wxr: "a WordPress WXR export",
  markdown: "a folder of markdown files",
  marble: "a /v1 API",
};

/** Bytes read from a file's start to tell what it is: more than any export's header takes. */
const HEAD_BYTES = 64 * 1024;

/** The kind of source at `location`, or null when its content is none of them. */
export async function detectSourceKind(location: string): Promise<SourceKind | null> {
  if (/^https?:\/\//i.test(location)) return "marble";
  const info = await stat(location).catch(() => null);
  if (!info) return null;
  if (info.isDirectory()) return "markdown";
  if (!info.isFile()) return null;
  const head = await readHead(location);
  // gzip's magic number: the archive is a .tar.gz.
  if (head[0] === 0x1f && head[1] === 0x8b) return "archive";
  const text = head
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  // WXR is RSS with WordPress's export namespace (wordpress.org/export/1.0/ to 1.2/).
  if (text.startsWith("<") && /xmlns:wp="https?:\/\/wordpress\.org\/export\/[\d.]+\/?"/.test(text))
    return "wxr";
  // Ghost: { "db": [{ "meta", "data" }] }, or 0.x's { "meta": { "exported_on" … }, "data" }.
  if (text.startsWith("{") && (/^\{\s*"db"\s*:\s*\[/.test(text) || /"exported_on"\s*:/.test(text)))
    return "ghost";
  return null;
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
