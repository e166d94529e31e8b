// The content hash of a media file (Media.contentHash): SHA-256 in hex, what an import compares to
// store a file once however many URLs or records name it.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

export function contentHashOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The hash of a file on the local disk, read as a stream (an import's spooled copy). */
export async function contentHashOfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
