// Removing an object that must go (the object of a failed upload, of a deleted record) when the store
// does not answer: the removal is tried again in the background until the store takes it. A store that
// was hung may still complete a put it received before our deadline once it wakes up, so an upload
// that timed out is only really undone by a removal that reaches the store after that.
import { StorageUnavailableError } from "../domain/errors.ts";
import type { MediaStorage } from "./storage.ts";

/** Something that can report a failed removal; the service's Logger fits. */
export interface RemovalLogger {
  warn(msg: string, data?: Record<string, unknown>): void;
}

/**
 * Waits before each further attempt: soon (a store back after a blip), then ever more rarely for about
 * a quarter of an hour. Retries live in this process only; the warning of the last failure names the key.
 */
export const REMOVAL_RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000, 10_000, 30_000, 120_000, 600_000];

/**
 * Removes `key` now and, should that fail, again after each of `delaysMs` until it succeeds. Resolves
 * with whether the first attempt removed it; the retries go on in the background (their timers do not
 * keep the process alive).
 */
export async function removeWithRetries(
  storage: MediaStorage,
  key: string,
  logger?: RemovalLogger,
  delaysMs: readonly number[] = REMOVAL_RETRY_DELAYS_MS,
): Promise<boolean> {
  const attempt = async (retry: number): Promise<boolean> => {
    try {
      await storage.delete(key);
      return true;
    } catch (error) {
      const delay = delaysMs[retry];
      // A timeout was logged where it happened (storage-deadlines.ts); other failures are logged here.
      if (delay === undefined || !(error instanceof StorageUnavailableError))
        logger?.warn(
          delay === undefined
            ? "Could not delete a stored media object; it is now orphaned"
            : "Could not delete a stored media object; retrying in the background",
          { storageKey: key, error: error instanceof Error ? error.message : String(error) },
        );
      if (delay !== undefined) setTimeout(() => void attempt(retry + 1), delay).unref();
      return false;
    }
  };
  return attempt(0);
}
