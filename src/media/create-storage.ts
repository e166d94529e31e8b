// Picks the storage backend the configuration names and gives every call into it a deadline.
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { removeInterruptedUploads } from "./interrupted-uploads.ts";
import { LocalMediaStorage } from "./local-storage.ts";
import { S3MediaStorage } from "./s3-storage.ts";
import type { MediaStorage } from "./storage.ts";
import { withDeadlines } from "./storage-deadlines.ts";
import { serviceBaseUrl } from "./transform-url.ts";

/** The parts of the configuration storage depends on (a full Config fits). */
export type MediaStorageConfig = Pick<Config, "media" | "publicUrl" | "port">;

/**
 * The storage a service instance starts with: on the local disk, the files uploads interrupted by a
 * crash left behind are removed first.
 */
export async function openMediaStorage(config: MediaStorageConfig, logger: Logger): Promise<MediaStorage> {
  const storage = config.media.storage;
  if (storage.kind === "local") await removeInterruptedUploads(storage.dir, logger);
  return createMediaStorage(config, logger);
}

export function createMediaStorage(config: MediaStorageConfig, logger: Pick<Logger, "warn">): MediaStorage {
  return withDeadlines(createStorageBackend(config), config.media.deadlines, logger);
}

/** The backend itself, without deadlines: what createMediaStorage wraps. */
export function createStorageBackend(config: MediaStorageConfig): MediaStorage {
  const storage = config.media.storage;
  if (storage.kind === "s3") {
    return new S3MediaStorage({
      bucket: storage.bucket,
      region: storage.region,
      endpoint: storage.endpoint,
      accessKeyId: storage.accessKeyId,
      secretAccessKey: storage.secretAccessKey,
      forcePathStyle: storage.forcePathStyle,
      publicUrl: storage.publicUrl,
      timeoutMs: config.media.deadlines.timeoutMs,
    });
  }
  return new LocalMediaStorage({ dir: storage.dir, publicBaseUrl: serviceBaseUrl(config) });
}
