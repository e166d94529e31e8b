// Where an import reads from, by `--from`: each source is a converter into the one record stream
// (src/content/import-records.ts) that import-run.ts consumes, plus the origin the ledger remembers it
// by (the same origin twice is the same import: repeated, it changes nothing; after a crash, it resumes).
import { createReadStream } from "node:fs";
import type { ImportRecord } from "../../content/import-records.ts";
import { archiveRecords } from "../archive/archive-records.ts";
import { readManifest } from "../archive/read-manifest.ts";

export const SOURCE_KINDS = ["archive", "ghost", "wxr", "markdown", "marble"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface ImportSource {
  origin: string;
  records: AsyncIterable<ImportRecord>;
  /** Records the source says it has, when it says (a progress bar's total). */
  total: number | null;
}

export interface SourceRequest {
  from: SourceKind;
  /** A file, a folder or a URL, as `from` needs. */
  location: string;
  /** The API key of a /v1 source. */
  key?: string;
}

export async function openImportSource(request: SourceRequest): Promise<ImportSource> {
  switch (request.from) {
    case "archive": {
      const manifest = await readManifest(request.location);
      return {
        origin: `portable:${manifest.workspace.id}`,
        records: archiveRecords(createReadStream(request.location)),
        total: Object.values(manifest.counts).reduce((sum, count) => sum + count, 0),
      };
    }
    default:
      return openConverter(request);
  }
}

async function openConverter(request: SourceRequest): Promise<ImportSource> {
  const converters = await import("./converters.ts");
  return converters.openConverter(request);
}
