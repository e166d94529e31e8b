// Media an importer finds by URL (a Ghost feature image, a WordPress attachment, a front matter cover):
// a media record without bytes, whose file the import fetches from `url` when it needs it (never in a
// dry run, never for a record already imported unchanged), within the import's rules and limits
// (src/transfer/remote-fetch.ts: public addresses only, deadlines, the media size cap).
import type { ImportedMedia } from "../../content/import/import-records.ts";

export function mediaAtUrl(url: string, alt: string | null = null): ImportedMedia {
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop() || "file");
  return { kind: "media", sourceId: url, url, name, alt, size: null };
}

export const isHttpUrl = (value: unknown): value is string =>
  typeof value === "string" && /^https?:\/\//.test(value);
