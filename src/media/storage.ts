// The one interface media storage backends implement; the rest of the service never sees which is used.
import type { Readable } from "node:stream";

/** Inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A stored object as a backend that serves its own files hands it out, already opened. */
export interface StoredMediaObject {
  size: number;
  /** Streams the object's bytes, or only `range` of them; the stream then owns the object (and closes it). */
  open(range?: ByteRange): Readable;
  /** Releases the object when it is not streamed (a HEAD, a 304, a 416); harmless after `open`. */
  close(): Promise<void>;
}

/** What every storage call accepts. */
export interface StorageCallOptions {
  /** Aborted when the caller stops waiting (the call's deadline): the backend gives up what it can. */
  signal?: AbortSignal;
}

export interface MediaStorage {
  /** Stores `bytes` under `key`, all or nothing: a failed put leaves no object behind. */
  put(key: string, bytes: Uint8Array, contentType: string, options?: StorageCallOptions): Promise<void>;
  /**
   * Stores what `body` streams under `key`, all or nothing like `put`, without holding the object in
   * memory (an import's media file, read from the archive). `size` is its exact length in bytes: a
   * body that ends shorter or runs longer fails the put. The body is consumed (or destroyed on failure).
   */
  putStream(
    key: string,
    body: Readable,
    size: number,
    contentType: string,
    options?: StorageCallOptions,
  ): Promise<void>;
  /** Removes the object; removing one that does not exist is not an error. */
  delete(key: string, options?: StorageCallOptions): Promise<void>;
  /**
   * Opens the object for the service itself to read or send (a transform's original, a stored variant);
   * null when there is none. Unlike `read`, every backend has it.
   */
  load(key: string, options?: StorageCallOptions): Promise<StoredMediaObject | null>;
  /** Removes every object whose key starts with `prefix` (an original's variants); none is not an error. */
  deleteUnder(prefix: string, options?: StorageCallOptions): Promise<void>;
  /** The absolute URL the object is publicly reachable at. */
  urlFor(key: string): string;
  /** Present on backends whose objects this service serves itself (the local disk); null when missing. */
  read?(key: string, options?: StorageCallOptions): Promise<StoredMediaObject | null>;
}

/** A storage whose objects the service serves itself (see serveLocalMedia). */
export type SelfServedMediaStorage = MediaStorage & Required<Pick<MediaStorage, "read">>;

/** Whether the service must mount serveLocalMedia for this storage's URLs to work. */
export function isSelfServed(storage: MediaStorage): storage is SelfServedMediaStorage {
  return typeof storage.read === "function";
}
