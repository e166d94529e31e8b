import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { createMediaStorage, createStorageBackend } from "../../src/media/create-storage.ts";
import { LocalMediaStorage } from "../../src/media/local-storage.ts";
import { S3MediaStorage } from "../../src/media/s3-storage.ts";
import { isSelfServed } from "../../src/media/storage.ts";

const KEY = "ws/0123456789abcdef0123456789abcdef.png";

const S3_CONFIG = {
  MEDIA_STORAGE: "s3",
  S3_BUCKET: "pics",
  S3_ENDPOINT: "http://minio:9000",
  S3_ACCESS_KEY_ID: "key",
  S3_SECRET_ACCESS_KEY: "secret",
};

describe("createMediaStorage", () => {
  it("stores on the local disk by default, with URLs under PUBLIC_URL", () => {
    const config = loadConfig({ DATA_DIR: "/tmp/data", PUBLIC_URL: "https://cms.example.com/" });
    expect(createStorageBackend(config)).toBeInstanceOf(LocalMediaStorage);
    const storage = createMediaStorage(config, silentLogger);
    expect(isSelfServed(storage)).toBe(true);
    expect(storage.urlFor(KEY)).toBe(`https://cms.example.com/media/${KEY}`);
  });

  it("falls back to localhost and the port without PUBLIC_URL", () => {
    const storage = createMediaStorage(loadConfig({ PORT: "4321" }), silentLogger);
    expect(storage.urlFor(KEY)).toBe(`http://localhost:4321/media/${KEY}`);
  });

  it("uses S3 when configured", () => {
    const config = loadConfig(S3_CONFIG);
    expect(createStorageBackend(config)).toBeInstanceOf(S3MediaStorage);
    const storage = createMediaStorage(config, silentLogger);
    expect(isSelfServed(storage)).toBe(false);
    expect(storage.urlFor(KEY)).toBe(`http://minio:9000/pics/${KEY}`);
  });

  it("bounds every storage call by MEDIA_STORAGE_TIMEOUT_MS (5 s by default)", () => {
    expect(loadConfig(S3_CONFIG).media.deadlines).toEqual({ timeoutMs: 5_000, minBytesPerSecond: 1_048_576 });
    const config = loadConfig({
      ...S3_CONFIG,
      MEDIA_STORAGE_TIMEOUT_MS: "750",
      MEDIA_STORAGE_MIN_BYTES_PER_SECOND: "2048",
    });
    expect(config.media.deadlines).toEqual({ timeoutMs: 750, minBytesPerSecond: 2048 });
  });

  it("prefers S3_PUBLIC_URL for S3 object URLs", () => {
    const storage = createMediaStorage(
      loadConfig({ MEDIA_STORAGE: "s3", S3_BUCKET: "pics", S3_PUBLIC_URL: "https://cdn.example.com/media/" }),
      silentLogger,
    );
    expect(storage.urlFor(KEY)).toBe(`https://cdn.example.com/media/${KEY}`);
  });
});
