// What an importer is asked for and gives back (import-source.ts picks the importer).
import type { SourceRecord } from "../../content/import/import-records.ts";
import type { RemoteAccess } from "../remote-fetch.ts";

export const SOURCE_KINDS = ["archive", "ghost", "wxr", "markdown", "marble"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface ImportSource {
  origin: string;
  records: AsyncIterable<SourceRecord>;
  /** Records the source says it has, when it says (a progress bar's total). */
  total: number | null;
}

export interface SourceRequest {
  /** Unset: told from the source's content (detect-source.ts). */
  from?: SourceKind;
  /** A file, a folder or a URL, as `from` needs. */
  location: string;
  /** The API key of a /v1 source. */
  key?: string;
}

/** What a source read over the network may cost (config.imports): a /v1 source's pages. */
export interface SourceLimits {
  remote: RemoteAccess;
  /** Pages read of one list at most. */
  maxPages: number;
  /** Bytes of one page at most. */
  maxPageBytes: number;
}
