// A stored media object's bytes as a stream of known size, whichever backend holds it: the local disk
// reads its file; any other backend (S3) is read at its public URL, as a client would.
import { Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import { MediaFileMissingError } from "../../domain/errors.ts";
import type { MediaStorage } from "../../media/storage.ts";

export interface MediaBytes {
  size: number;
  stream: Readable;
}

export async function openMediaBytes(storage: MediaStorage, storageKey: string): Promise<MediaBytes> {
  if (storage.read) {
    const object = await storage.read(storageKey);
    if (!object) throw new MediaFileMissingError(`The media file ${storageKey} is missing from the storage`);
    return { size: object.size, stream: object.open() };
  }
  const response = await fetch(storage.urlFor(storageKey));
  const length = Number(response.headers.get("content-length"));
  if (!response.ok || !response.body || !Number.isFinite(length))
    throw new MediaFileMissingError(
      `The media file ${storageKey} could not be read (HTTP ${response.status})`,
    );
  return { size: length, stream: Readable.fromWeb(response.body as ReadableStream) };
}
