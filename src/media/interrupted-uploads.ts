// A local put writes its bytes under a temporary `.partial` name and renames the file to its key when
// complete (local-storage.ts). A process killed in between (kill -9, a power cut) leaves the temporary
// file behind: never served (it is not a key), but taking disk space for good. They are removed when
// the storage is opened, before this instance serves a request. That assumes what the local backend
// assumes throughout: its folder (under DATA_DIR) belongs to this one instance, so no .partial file
// there can be another process's upload in progress.
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../logger.ts";
import { PARTIAL_SUFFIX } from "./local-storage.ts";

/** Removes every `.partial` file below `dir` (which may not exist yet); returns how many there were. */
export async function removeInterruptedUploads(dir: string, logger: Pick<Logger, "info">): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    },
  );
  const leftovers = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(PARTIAL_SUFFIX))
    .map((entry) => path.join(entry.parentPath, entry.name));
  await Promise.all(leftovers.map((file) => rm(file, { force: true })));
  if (leftovers.length > 0)
    logger.info("removed files of uploads interrupted before they completed", { count: leftovers.length });
  return leftovers.length;
}
