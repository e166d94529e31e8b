// What an uploaded file is and what can be read from it. The type decides acceptance, and an image must
// also decode (image-probe.ts); every other value is best effort and null when it cannot be read, so a
// quirky video or document never fails an upload here.
//
// The decoders (sharp, music-metadata) load on the first upload that needs them, not with the server:
// most starts never probe a file, and loading them is a noticeable part of a start.
import { readFile } from "node:fs/promises";
import type { AllowedMediaType, MediaType } from "./allowed-types.ts";
import { detectMediaType } from "./detect-type.ts";

export interface ProbeResult {
  /** Detected from the bytes, never the client's claim. */
  mimeType: string;
  /** Extension for the storage key, from the allow-list. */
  extension: string;
  type: MediaType;
  width: number | null;
  height: number | null;
  /** Milliseconds, for audio and video. */
  duration: number | null;
  /** 4x3-component blurHash, for images. */
  blurHash: string | null;
}

/** Probes `bytes`; null when their type is not allowed or not recognisable, or an image does not decode. */
export async function probeMedia(bytes: Uint8Array): Promise<ProbeResult | null> {
  const detection = await detectMediaType(bytes);
  return detection.allowed ? probeAllowedMedia(bytes, detection.allowed) : null;
}

/**
 * Reads the details of a file whose type has already been detected and allowed; null when the file is an
 * image whose bytes cannot be decoded (truncated or corrupt). `source` is the bytes, or the path of a
 * file holding them (an import's temporary copy): an image is then decoded from the file by sharp, never
 * read into a buffer here; audio and video are read whole for their parsers, as an upload is
 * (MEDIA_MAX_BYTES, checked before, bounds them); a document is not read at all.
 */
export async function probeAllowedMedia(
  source: Uint8Array | string,
  allowed: AllowedMediaType,
): Promise<ProbeResult | null> {
  const base = { mimeType: allowed.mime, extension: allowed.extension, type: allowed.type };
  const none = { width: null, height: null, duration: null, blurHash: null };
  switch (allowed.type) {
    case "image": {
      const { probeImage } = await import("./image-probe.ts");
      const image = await probeImage(source);
      return image && { ...base, ...none, ...image };
    }
    case "audio":
    case "video": {
      const { probeAudioVideo } = await import("./av-probe.ts");
      const bytes = typeof source === "string" ? await readFile(source) : source;
      return { ...base, ...none, ...(await probeAudioVideo(bytes, allowed.mime)) };
    }
    case "document":
      return { ...base, ...none };
  }
}
