// The converters from other systems, loaded only when one is asked for.
import { ImportSourceError } from "../../domain/errors.ts";
import type { ImportSource, SourceLimits, SourceRequest } from "./source-types.ts";

export async function openConverter(request: SourceRequest, limits: SourceLimits): Promise<ImportSource> {
  switch (request.from) {
    case "markdown":
      return (await import("./markdown-folder.ts")).openMarkdownFolder(request.location);
    case "ghost":
      return (await import("./ghost-json.ts")).openGhostExport(request.location);
    case "wxr":
      return (await import("./wordpress-wxr.ts")).openWordPressExport(request.location);
    case "marble":
      return (await import("./marble-api.ts")).openMarbleApi(request.location, request.key, limits);
    default:
      throw new ImportSourceError(`No importer for --from ${request.from}`);
  }
}
