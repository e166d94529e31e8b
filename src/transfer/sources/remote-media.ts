// Media an importer finds by URL (a Ghost feature image, a WordPress attachment, a front matter cover):
// a media record whose bytes are fetched when the import needs them (never in a dry run, never for a
// record already imported unchanged).
import type { ImportedMedia } from "../../content/import-records.ts";
import { MediaFileMissingError } from "../../domain/errors.ts";

export function mediaAtUrl(url: string, alt: string | null = null): ImportedMedia {
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop() || "file");
  return {
    kind: "media",
    sourceId: url,
    url,
    name,
    alt,
    size: null,
    async load() {
      const response = await fetch(url);
      if (!response.ok) throw new MediaFileMissingError(`${url} answered HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

export const isHttpUrl = (value: unknown): value is string =>
  typeof value === "string" && /^https?:\/\//.test(value);
