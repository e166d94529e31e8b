// The converters from other systems, loaded only when one is asked for.
import { ImportSourceError } from "../../domain/errors.ts";
import type { ImportSource, SourceRequest } from "./source-types.ts";

export async function openConverter(request: SourceRequest): Promise<ImportSource> {
  throw new ImportSourceError(`No importer for --from ${request.from}`);
}
