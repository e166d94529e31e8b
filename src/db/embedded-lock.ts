// PGlite keeps a single-process database in a directory: two processes opening it at once would
// corrupt it. A lock file holding the owner's pid turns that into a clear error instead.
import fs from "node:fs";
import path from "node:path";

export class EmbeddedDatabaseLockedError extends Error {
  override name = "EmbeddedDatabaseLockedError";
}

export interface EmbeddedLock {
  release(): void;
}

/** Directories this process holds: the pid in the lock file cannot tell two openers in one process apart. */
const heldHere = new Set<string>();

export function acquireEmbeddedLock(dir: string): EmbeddedLock {
  fs.mkdirSync(dir, { recursive: true });
  const lockPath = path.join(fs.realpathSync(dir), "service.lock");
  if (heldHere.has(lockPath)) {
    throw new EmbeddedDatabaseLockedError(`The embedded database in ${dir} is already open in this process`);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" });
      heldHere.add(lockPath);
      return {
        release() {
          heldHere.delete(lockPath);
          if (readOwner(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = readOwner(lockPath);
      if (owner !== null && owner !== process.pid && isAlive(owner)) {
        throw new EmbeddedDatabaseLockedError(
          `The embedded database in ${dir} is in use by process ${owner} (a running server?). ` +
            "Stop that process first, or manage workspaces and keys through the admin API (/admin) of the running server.",
        );
      }
      // The owner is gone (crash, kill -9): the lock is stale and safe to take over.
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new EmbeddedDatabaseLockedError(`Could not lock the embedded database in ${dir}`);
}

function readOwner(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, "utf8"), 10);
    return Number.isFinite(pid) ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
