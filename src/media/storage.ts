// The one interface media storage backends implement; the rest of the service never sees which is used.
import type { Readable } from "node:stream";

/** Inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A stored object as a backend that serves its own files hands it out. */
export interface StoredMediaObject {
  size: number;
  /** Opens the object's bytes, or only `range` of them. */
  open(range?: ByteRange): Readable;
}

export interface MediaStorage {
  /** Stores `bytes` under `key`, all or nothing: a failed put leaves no object behind. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Removes the object; removing one that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /** The absolute URL the object is publicly reachable at. */
  urlFor(key: string): string;
  /** Present on backends whose objects this service serves itself (the local disk); null when missing. */
  read?(key: string): Promise<StoredMediaObject | null>;
}

/** A storage whose objects the service serves itself (see serveLocalMedia). */
export type SelfServedMediaStorage = MediaStorage & Required<Pick<MediaStorage, "read">>;

/** Whether the service must mount serveLocalMedia for this storage's URLs to work. */
export function isSelfServed(storage: MediaStorage): storage is SelfServedMediaStorage {
  return typeof storage.read === "function";
}
