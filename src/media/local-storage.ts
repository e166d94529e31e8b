// Media on the local disk, served by the service itself (serve-local-media.ts) under /media/<key>.
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { isMediaKey } from "./media-key.ts";
import type { SelfServedMediaStorage, StoredMediaObject } from "./storage.ts";

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
  async put(key: string, bytes: Uint8Array, _contentType: string): Promise<void> {
    const file = this.pathFor(key);
    await mkdir(path.dirname(file), { recursive: true });
    // Write beside the target and rename, so a crash or full disk never leaves a half-written object
    // under a real key; the temporary name never matches a key, so it is never served.
    const temporary = `${file}.${randomBytes(6).toString("hex")}.partial`;
    try {
      await writeFile(temporary, bytes, { flag: "wx" });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathFor(key), { force: true });
  }

  urlFor(key: string): string {
    return `${this.baseUrl}${LOCAL_MEDIA_PATH}/${key}`;
  }

  async read(key: string): Promise<StoredMediaObject | null> {
    if (!isMediaKey(key)) return null;
    const file = this.pathFor(key);
    const stats = await stat(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
      throw error;
    });
    if (!stats?.isFile()) return null;
    return {
      size: stats.size,
      open: (range) => createReadStream(file, range ? { start: range.start, end: range.end } : {}),
    };
  }

  /** The file for a key; throws for anything that is not a well-formed key inside the root. */
  private pathFor(key: string): string {
    if (!isMediaKey(key)) throw new TypeError(`Not a media key: ${key}`);
    const file = path.resolve(this.root, ...key.split("/"));
    // isMediaKey already rules out "..", this keeps the guarantee should the key format ever loosen.
    if (!file.startsWith(this.root + path.sep))
      throw new TypeError(`Media key escapes the storage root: ${key}`);
    return file;
  }
}
