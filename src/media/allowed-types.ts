// The allow-list of uploadable files, keyed by the MIME type detected from their bytes (file-type's
// names, plus the legacy Office types that ./cfb-sniff.ts tells apart). Anything not listed is refused.
//
// Deliberately absent:
// - SVG: it is XML that can carry <script> and event handlers, and file-type does not detect it (it only
//   reads binary signatures), so it would need an XML sanitiser of its own. Refused for now.
// - Macro-enabled Office files (docm, xlsm, pptm, …) and legacy .doc/.xls carrying a VBA project.
// - Other CFB files (MSI installers, Outlook .msg, encrypted OOXML) — same container as .doc, different risk.
// - HEIC/TIFF/BMP/RAW images: browsers cannot display most of them, so they make poor web media.

export type MediaType = "image" | "video" | "audio" | "document";

export interface AllowedMediaType {
  /** The detected MIME type, reported as the media's `mimeType`. */
  mime: string;
  /** Extension used in storage keys. Chosen here, not taken from the client's file name. */
  extension: string;
  type: MediaType;
}

const ALLOWED: readonly AllowedMediaType[] = [
  { mime: "image/png", extension: "png", type: "image" },
  // Animated PNG; stored as .png, which browsers play as APNG anyway.
  { mime: "image/apng", extension: "png", type: "image" },
  { mime: "image/jpeg", extension: "jpg", type: "image" },
  { mime: "image/gif", extension: "gif", type: "image" },
  { mime: "image/webp", extension: "webp", type: "image" },
  { mime: "image/avif", extension: "avif", type: "image" },

  { mime: "video/mp4", extension: "mp4", type: "video" },
  { mime: "video/x-m4v", extension: "m4v", type: "video" },
  { mime: "video/webm", extension: "webm", type: "video" },
  { mime: "video/quicktime", extension: "mov", type: "video" },

  { mime: "audio/mpeg", extension: "mp3", type: "audio" },
  { mime: "audio/wav", extension: "wav", type: "audio" },
  { mime: "audio/ogg", extension: "ogg", type: "audio" },
  { mime: "audio/ogg; codecs=opus", extension: "opus", type: "audio" },
  { mime: "audio/flac", extension: "flac", type: "audio" },
  { mime: "audio/aac", extension: "aac", type: "audio" },
  // file-type reports M4A as audio/x-m4a and M4B/F4A as audio/mp4; both are stored as .m4a and served as
  // audio/mp4 (the registered type), which is why audio/mp4 comes first.
  { mime: "audio/mp4", extension: "m4a", type: "audio" },
  { mime: "audio/x-m4a", extension: "m4a", type: "audio" },

  { mime: "application/pdf", extension: "pdf", type: "document" },
  {
    mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    extension: "docx",
    type: "document",
  },
  {
    mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    extension: "xlsx",
    type: "document",
  },
  {
    mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    extension: "pptx",
    type: "document",
  },
  { mime: "application/vnd.oasis.opendocument.text", extension: "odt", type: "document" },
  { mime: "application/vnd.oasis.opendocument.spreadsheet", extension: "ods", type: "document" },
  { mime: "application/vnd.oasis.opendocument.presentation", extension: "odp", type: "document" },
  { mime: "application/msword", extension: "doc", type: "document" },
  { mime: "application/vnd.ms-excel", extension: "xls", type: "document" },
  { mime: "application/vnd.ms-powerpoint", extension: "ppt", type: "document" },
];

const byMime = new Map(ALLOWED.map((entry) => [entry.mime, entry]));

// The first entry per extension wins, so an extension always maps back to one Content-Type.
const contentTypeByExtension = new Map<string, string>();
for (const entry of ALLOWED) {
  if (!contentTypeByExtension.has(entry.extension)) contentTypeByExtension.set(entry.extension, entry.mime);
}

/** The allow-list entry for a detected MIME type, or undefined when that type is not accepted. */
export function allowedMediaType(detectedMime: string): AllowedMediaType | undefined {
  return byMime.get(detectedMime);
}

/** The Content-Type to serve a stored object with, from its key's extension; undefined if not ours. */
export function contentTypeForExtension(extension: string): string | undefined {
  return contentTypeByExtension.get(extension);
}

/** Every accepted type, e.g. for documentation or an error message. */
export function allowedMediaTypes(): readonly AllowedMediaType[] {
  return ALLOWED;
}
