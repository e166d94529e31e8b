// Picks the storage backend the configuration names.
import type { Config } from "../config.ts";
import { LocalMediaStorage } from "./local-storage.ts";
import { S3MediaStorage } from "./s3-storage.ts";
import type { MediaStorage } from "./storage.ts";

/** The parts of the configuration storage depends on (a full Config fits). */
export type MediaStorageConfig = Pick<Config, "media" | "publicUrl" | "port">;

export function createMediaStorage(config: MediaStorageConfig): MediaStorage {
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
    });
  }
  return new LocalMediaStorage({
    dir: storage.dir,
    // Without PUBLIC_URL, URLs point at the service on this machine: right for development, while a
    // deployment behind a proxy or domain must set PUBLIC_URL for the URLs to be reachable.
    publicBaseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
  });
}
