// The manifest of an archive file, read from its first entry without reading further: an import names
// its origin in the ledger after the source workspace before the first record is written.
import { createReadStream } from "node:fs";
import { ArchiveFormatError } from "../../domain/errors.ts";
import type { Manifest } from "../format.ts";
import { archiveRecords } from "./archive-records.ts";

export async function readManifest(file: string): Promise<Manifest> {
  const input = createReadStream(file);
  let found: Manifest | null = null;
  try {
    const records = archiveRecords(input, (manifest) => {
      found = manifest;
    });
    // The manifest is handed over before the first record: stop at the first record (or the end).
    for await (const _record of records) break;
  } finally {
    input.destroy();
  }
  if (!found) throw new ArchiveFormatError(`${file} has no manifest`);
  return found;
}
