// Every call into media storage gets a deadline. Without one a hung store (an S3 endpoint that accepts
// connections and never answers, a stalled network mount) holds each request, and its socket, for as
// long as the store stays hung. At the deadline the call is abandoned: the backend is told through an
// AbortSignal (the SDK destroys its request, the local disk skips the rename that would publish a file),
// the warning is logged once, and the caller gets a StorageUnavailableError (503 with Retry-After).
import { StorageUnavailableError } from "../domain/errors.ts";
import type { Logger } from "../logger.ts";
import { isSelfServed, type MediaStorage } from "./storage.ts";

export interface StorageDeadlines {
  /** Milliseconds a delete or read may take, and an upload before its transfer time is added. */
  timeoutMs: number;
  /** The slowest transfer an upload may make; its deadline grows with its size at this rate. */
  minBytesPerSecond: number;
}

/** `storage` with a deadline on every call; a storage the service serves itself stays self-served. */
export function withDeadlines(
  storage: MediaStorage,
  deadlines: StorageDeadlines,
  logger: Pick<Logger, "warn">,
): MediaStorage {
  const retryAfterSeconds = Math.max(1, Math.ceil(deadlines.timeoutMs / 1000));
  const bounded = <T>(
    operation: string,
    key: string,
    timeoutMs: number,
    run: (signal: AbortSignal) => Promise<T>,
  ) =>
    callWithDeadline(timeoutMs, run).catch((error: unknown) => {
      if (!isTimeout(error)) throw error;
      logger.warn("media storage did not answer in time", { operation, key, timeoutMs });
      throw new StorageUnavailableError(retryAfterSeconds);
    });

  const withDeadline: MediaStorage = {
    put: (key, bytes, contentType) =>
      bounded("put", key, uploadDeadlineMs(deadlines, bytes.byteLength), (signal) =>
        storage.put(key, bytes, contentType, { signal }),
      ),
    putStream: (key, body, size, contentType) =>
      bounded("put", key, uploadDeadlineMs(deadlines, size), (signal) =>
        storage.putStream(key, body, size, contentType, { signal }),
      ),
    delete: (key) => bounded("delete", key, deadlines.timeoutMs, (signal) => storage.delete(key, { signal })),
    // A load reads a whole original or variant (both bounded in size): one timeout, like a delete.
    load: (key) => bounded("load", key, deadlines.timeoutMs, (signal) => storage.load(key, { signal })),
    deleteUnder: (prefix) =>
      bounded("deleteUnder", prefix, deadlines.timeoutMs, (signal) =>
        storage.deleteUnder(prefix, { signal }),
      ),
    urlFor: (key) => storage.urlFor(key),
  };
  if (isSelfServed(storage))
    withDeadline.read = (key) =>
      bounded("read", key, deadlines.timeoutMs, (signal) => storage.read(key, { signal }));
  return withDeadline;
}

/**
 * An upload's deadline: the base timeout (connecting, the store's own work) plus the time its bytes take
 * at the slowest acceptable rate. A fixed deadline long enough for the largest file would let a hung
 * store hold every small upload that long.
 */
export function uploadDeadlineMs(deadlines: StorageDeadlines, bytes: number): number {
  return deadlines.timeoutMs + Math.ceil((bytes / deadlines.minBytesPerSecond) * 1000);
}

class DeadlinePassed extends Error {
  override name = "DeadlinePassed";
}

/**
 * Runs `run` and settles when it does or when `timeoutMs` pass, whichever is first; at the deadline the
 * signal `run` got is aborted. A call that ends after its deadline is ignored: its outcome is no longer
 * anyone's answer.
 */
async function callWithDeadline<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const passed = new DeadlinePassed(`No answer within ${timeoutMs} ms`);
      // Rejected before aborting, so the answer is this error rather than the abort error `run` may raise.
      reject(passed);
      controller.abort(passed);
    }, timeoutMs);
  });
  const work = run(controller.signal);
  // The loser of the race below still settles later; that must not become an unhandled rejection.
  work.catch(() => {});
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The deadline, or the SDK's own connection and socket timeouts (s3-storage.ts), which may fire just
 * before it; a backend that rethrows the signal's reason rethrows the DeadlinePassed itself.
 */
function isTimeout(error: unknown): boolean {
  return error instanceof DeadlinePassed || (error instanceof Error && error.name === "TimeoutError");
}
