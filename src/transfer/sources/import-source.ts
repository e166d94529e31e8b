// Where an import reads from, by `--from`: each source is a converter into the one record stream
// (src/content/import/import-records.ts) that import-run.ts consumes, plus the origin the ledger remembers it
// by (the same origin twice is the same import: repeated, it changes nothing; after a crash, it resumes).
import { createReadStream } from "node:fs";
import { archiveRecords } from "../archive/archive-records.ts";
import { readManifest } from "../archive/read-manifest.ts";
import type { ImportSource, SourceLimits, SourceRequest } from "./source-types.ts";

export type { ImportSource, SourceKind, SourceLimits, SourceRequest } from "./source-types.ts";

export async function openImportSource(request: SourceRequest, limits: SourceLimits): Promise<ImportSource> {
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
      return openConverter(request, limits);
  }
}

async function openConverter(request: SourceRequest, limits: SourceLimits): Promise<ImportSource> {
  const converters = await import("./converters.ts");
  return converters.openConverter(request, limits);
}
