// Decides what a file is from its bytes alone; the client's file name and Content-Type are never asked.
// file-type (and the tokenizers under it) loads on the first upload, not with the server (probe.ts).
import { readFile } from "node:fs/promises";
import { type AllowedMediaType, allowedMediaType } from "./allowed-types.ts";
import { sniffCfbDocument } from "./cfb-sniff.ts";

export type TypeDetection =
  | { allowed: AllowedMediaType; detectedMime: string }
  /** `detectedMime` is null when nothing was recognised; `reason` says why a recognised type was refused. */
  | { allowed: null; detectedMime: string | null; reason?: string };

/** Detects the type of `bytes` and checks it against the allow-list. */
export async function detectMediaType(bytes: Uint8Array): Promise<TypeDetection> {
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = await fileTypeFromBuffer(bytes);
  if (!detected) return { allowed: null, detectedMime: null };

  if (detected.mime === "application/x-cfb") {
    const document = sniffCfbDocument(bytes);
    if (!document) return { allowed: null, detectedMime: detected.mime };
    if (document.hasMacros)
      return { allowed: null, detectedMime: document.mime, reason: "they contain macros" };
    return allowedOrRefused(document.mime);
  }
  return allowedOrRefused(detected.mime);
}

/**
 * Detects the type of the file at `file` (an import's temporary copy) reading only what the detection
 * needs; a Compound File (a legacy Office document) is read whole to look for macros, which its size
 * limit (MEDIA_MAX_BYTES, checked before) bounds.
 */
export async function detectMediaTypeOfFile(file: string): Promise<TypeDetection> {
  const { fileTypeFromFile } = await import("file-type");
  const detected = await fileTypeFromFile(file);
  if (!detected) return { allowed: null, detectedMime: null };
  if (detected.mime === "application/x-cfb") return detectMediaType(await readFile(file));
  return allowedOrRefused(detected.mime);
}

function allowedOrRefused(mime: string): TypeDetection {
  const allowed = allowedMediaType(mime);
  return allowed ? { allowed, detectedMime: mime } : { allowed: null, detectedMime: mime };
}
