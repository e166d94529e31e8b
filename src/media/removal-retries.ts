// Removing an object that must go (the object of a failed upload, of a deleted record) when the store
// does not answer: the removal is tried again in the background until the store takes it.
import { StorageUnavailableError } from "../domain/errors.ts";
import { isMediaKey } from "./media-key.ts";
import type { MediaStorage } from "./storage.ts";
import { variantPrefix } from "./variant-key.ts";

/** Something that can report a failed removal; the service's Logger fits. */
export interface RemovalLogger {
  warn(msg: string, data?: Record<string, unknown>): void;
}

/**
 * Waits before each further attempt: soon (a store back after a blip), then ever more rarely for about
 * a quarter of an hour. Retries live in this process only; the warning of the last failure names the key.
 */
export const REMOVAL_RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000, 10_000, 30_000, 120_000, 600_000];

export interface RemovalOptions {
  /** Waits before each retry; REMOVAL_RETRY_DELAYS_MS by default. */
  delaysMs?: readonly number[];
  /**
   * Remove once more, one delay after the first removal that succeeded. For the object of a put that was
   * abandoned: a hung store that wakes up may still complete that put after answering the removal.
   */
  repeatOnceRemoved?: boolean;
  /** What one attempt does; removing the object at `key` by default (see removeVariantsWithRetries). */
  remove?: (storage: MediaStorage, key: string) => Promise<void>;
}

/**
 * Removes `key` now and, should that fail, again after each delay until it succeeds. Resolves with
 * whether the first attempt removed it; the retries go on in the background (their timers do not keep
 * the process alive).
 */
export async function removeWithRetries(
  storage: MediaStorage,
  key: string,
  logger?: RemovalLogger,
  {
    delaysMs = REMOVAL_RETRY_DELAYS_MS,
    repeatOnceRemoved = false,
    remove = (store, object) => store.delete(object),
  }: RemovalOptions = {},
): Promise<boolean> {
  const later = (delay: number, next: () => Promise<unknown>) => setTimeout(() => void next(), delay).unref();
  const attempt = async (retry: number, repeating: boolean): Promise<boolean> => {
    try {
      await remove(storage, key);
      if (repeatOnceRemoved && !repeating) {
        const delay = delaysMs[retry] ?? delaysMs.at(-1) ?? 0;
        later(delay, () => attempt(retry + 1, true));
      }
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
      if (delay !== undefined) later(delay, () => attempt(retry + 1, repeating));
      return false;
    }
  };
  return attempt(0, false);
}

/**
 * Removes every stored variant of the original at `key` (variant-key.ts), retried as removeWithRetries
 * retries one object: a deleted media item must not leave its resized copies readable in the store.
 */
export function removeVariantsWithRetries(
  storage: MediaStorage,
  key: string,
  logger?: RemovalLogger,
  options: Omit<RemovalOptions, "remove"> = {},
): Promise<boolean> {
  // A key of another shape (a record made by hand or an older release) cannot have variants.
  if (!isMediaKey(key)) return Promise.resolve(true);
  return removeWithRetries(storage, variantPrefix(key), logger, {
    ...options,
    remove: (store, prefix) => store.deleteUnder(prefix),
  });
}
