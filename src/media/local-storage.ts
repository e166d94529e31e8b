// Media on the local disk, served by the service itself (serve-local-media.ts) under /media/<key>.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { exactLength } from "./exact-length.ts";
import { isMediaKey } from "./media-key.ts";
import type { SelfServedMediaStorage, StorageCallOptions, StoredMediaObject } from "./storage.ts";
import { isVariantKey, isVariantPrefix } from "./variant-key.ts";

/** Ends the temporary name a file is written under before it is renamed to its key. */
export const PARTIAL_SUFFIX = ".partial";

/** URL path prefix under which serveLocalMedia serves the local store. */
export const LOCAL_MEDIA_PATH = "/media";

export interface LocalMediaStorageOptions {
  /** Directory objects are kept under; created as needed. */
  dir: string;
  /** Absolute URL the service is reached at, e.g. "https://cms.example.com"; object URLs are built on it. */
  publicBaseUrl: string;
}

export class LocalMediaStorage implements SelfServedMediaStorage {
  private readonly root: string;
  private readonly baseUrl: string;

  constructor(options: LocalMediaStorageOptions) {
    this.root = path.resolve(options.dir);
    this.baseUrl = options.publicBaseUrl.replace(/\/+$/, "");
  }

  // The content type is not recorded: keys end in an allow-listed extension, which determines it on serving.
  async put(
    key: string,
    bytes: Uint8Array,
    _contentType: string,
    { signal }: StorageCallOptions = {},
  ): Promise<void> {
    await this.publish(key, signal, (temporary) => writeFile(temporary, bytes, { flag: "wx", signal }));
  }

  async putStream(
    key: string,
    body: Readable,
    size: number,
    _contentType: string,
    { signal }: StorageCallOptions = {},
  ): Promise<void> {
    await this.publish(key, signal, async (temporary) => {
      // Opened before the pipeline starts: a write stream that opened its own file could still be opening
      // when a short or long body rejects the pipeline, and create the file after publish removed it.
      const file = await open(temporary, "wx");
      await pipeline(exactLength(body, size, key), file.createWriteStream(), { signal });
    });
  }

  /**
   * Writes beside the target and renames, so a crash or full disk never leaves a half-written object
   * under a real key; the temporary name never matches a key, so it is never served, and a process
   * killed before the rename leaves it to removeInterruptedUploads (interrupted-uploads.ts).
   */
  private async publish(
    key: string,
    signal: AbortSignal | undefined,
    write: (temporary: string) => Promise<void>,
  ): Promise<void> {
    const file = this.pathFor(key);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString("hex")}${PARTIAL_SUFFIX}`;
    try {
      await write(temporary);
      // A put whose caller stopped waiting (its deadline passed) must not publish the file afterwards.
      signal?.throwIfAborted();
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  }

  // A delete is one unlink: nothing to give up half way, so the signal is not consulted.
  async delete(key: string, _options?: StorageCallOptions): Promise<void> {
    await rm(this.pathFor(key), { force: true });
  }

  // The variants of an original are files in one folder beside it (variant-key.ts).
  async deleteUnder(prefix: string, _options?: StorageCallOptions): Promise<void> {
    if (!isVariantPrefix(prefix)) throw new TypeError(`Not a variant prefix: ${prefix}`);
    await rm(this.inRoot(prefix.slice(0, -1)), { recursive: true, force: true });
  }

  load(key: string, options?: StorageCallOptions): Promise<StoredMediaObject | null> {
    return this.read(key, options);
  }

  urlFor(key: string): string {
    return `${this.baseUrl}${LOCAL_MEDIA_PATH}/${key}`;
  }

  async read(key: string, { signal }: StorageCallOptions = {}): Promise<StoredMediaObject | null> {
    if (!isStoredKey(key)) return null;
    // Opened first and sized from the open file: the size always belongs to the bytes that are sent, and
    // a disk that hangs does so here, before anything of the answer is written.
    const handle = await open(this.pathFor(key), "r").catch((error: NodeJS.ErrnoException) => {
      // EISDIR: some systems refuse to open a directory at all (Linux opens it; stat then says so).
      if (error.code === "ENOENT" || error.code === "ENOTDIR" || error.code === "EISDIR") return null;
      throw error;
    });
    if (!handle) return null;
    try {
      // An open that returns after the caller's deadline has nobody to hand the file to.
      signal?.throwIfAborted();
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      let streamed = false;
      return {
        size: stats.size,
        open: (range) => {
          streamed = true;
          return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
        },
        close: async () => {
          if (!streamed) await handle.close();
        },
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The file for a key; throws for anything that is not a well-formed key inside the root. */
  private pathFor(key: string): string {
    if (!isStoredKey(key)) throw new TypeError(`Not a media key: ${key}`);
    return this.inRoot(key);
  }

  private inRoot(key: string): string {
    const file = path.resolve(this.root, ...key.split("/"));
    // isMediaKey already rules out "..", this keeps the guarantee should the key format ever loosen.
    if (!file.startsWith(this.root + path.sep))
      throw new TypeError(`Media key escapes the storage root: ${key}`);
    return file;
  }
}

/** An original's key or one of its variants' (both safe as relative paths). */
function isStoredKey(key: string): boolean {
  return isMediaKey(key) || isVariantKey(key);
}
