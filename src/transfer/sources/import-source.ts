// Where an import reads from, by `--from`: each source is a converter into the one record stream
// (src/content/import/import-records.ts) that import-run.ts consumes, plus the origin the ledger remembers it
// by (the same origin twice is the same import: repeated, it changes nothing; after a crash, it resumes).
import { createReadStream } from "node:fs";
import { ImportSourceError } from "../../domain/errors.ts";
import { archiveRecords } from "../archive/archive-records.ts";
import { readManifest } from "../archive/read-manifest.ts";
import { detectSourceKind, SOURCE_NAMES } from "./detect-source.ts";
import type { ImportSource, SourceKind, SourceLimits, SourceRequest } from "./source-types.ts";

export type { ImportSource, SourceKind, SourceLimits, SourceRequest } from "./source-types.ts";

/**
 * The source `request` names. Without `from`, its kind is told from its content; with a `from` its
 * content does not fit, the error says which `--from` does.
 */
export async function openImportSource(request: SourceRequest, limits: SourceLimits): Promise<ImportSource> {
  if (!request.from) {
    const detected = await detectSourceKind(request.location);
    if (!detected)
      throw new ImportSourceError(
        `cannot tell what ${request.location} is: name it with --from (archive, ghost, wxr, markdown or marble)`,
      );
    return openAs(detected, request, limits);
  }
  const from = request.from;
  try {
    return await openAs(from, request, limits);
  } catch (error) {
    const detected = await detectSourceKind(request.location).catch(() => null);
    if (!detected || detected === from) throw error;
    throw new ImportSourceError(
      `${request.location} is ${SOURCE_NAMES[detected]}, not ${SOURCE_NAMES[from]}: use --from ${detected}`,
    );
  }
}

async function openAs(from: SourceKind, request: SourceRequest, limits: SourceLimits): Promise<ImportSource> {
  switch (from) {
    case "archive": {
      const manifest = await readManifest(request.location);
      return {
        origin: `portable:${manifest.workspace.id}`,
        records: archiveRecords(createReadStream(request.location)),
        total: Object.values(manifest.counts).reduce((sum, count) => sum + count, 0),
      };
    }
    default:
      return openConverter({ ...request, from }, limits);
  }
}

async function openConverter(request: SourceRequest, limits: SourceLimits): Promise<ImportSource> {
  const converters = await import("./converters.ts");
  return converters.openConverter(request, limits);
}
