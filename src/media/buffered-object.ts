// Bytes held in memory (an object read from S3, a variant just computed), handed out as the local store
// hands out an open file, so one function answers with either.
import { Readable } from "node:stream";
import type { StoredMediaObject } from "./storage.ts";

export function bufferedObject(bytes: Buffer): StoredMediaObject {
  return {
    size: bytes.byteLength,
    open: (range) => Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]),
    close: async () => {},
  };
}

/** Every byte of `object`, read into one buffer (the object is closed once read). */
export async function readWhole(object: StoredMediaObject): Promise<Buffer> {
  const chunks: Buffer[] = await object.open().toArray();
  return Buffer.concat(chunks);
}
