import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createMediaStorage } from "../../src/media/create-storage.ts";
import { LocalMediaStorage } from "../../src/media/local-storage.ts";
import { S3MediaStorage } from "../../src/media/s3-storage.ts";

const KEY = "ws/0123456789abcdef0123456789abcdef.png";

describe("createMediaStorage", () => {
  it("stores on the local disk by default, with URLs under PUBLIC_URL", () => {
    const storage = createMediaStorage(
      loadConfig({ DATA_DIR: "/tmp/data", PUBLIC_URL: "https://cms.example.com/" }),
    );
    expect(storage).toBeInstanceOf(LocalMediaStorage);
    expect(storage.urlFor(KEY)).toBe(`https://cms.example.com/media/${KEY}`);
  });

  it("falls back to localhost and the port without PUBLIC_URL", () => {
    const storage = createMediaStorage(loadConfig({ PORT: "4321" }));
    expect(storage.urlFor(KEY)).toBe(`http://localhost:4321/media/${KEY}`);
  });

  it("uses S3 when configured", () => {
    const storage = createMediaStorage(
      loadConfig({
        MEDIA_STORAGE: "s3",
        S3_BUCKET: "pics",
        S3_ENDPOINT: "http://minio:9000",
        S3_ACCESS_KEY_ID: "key",
        S3_SECRET_ACCESS_KEY: "secret",
      }),
    );
    expect(storage).toBeInstanceOf(S3MediaStorage);
    expect(storage.urlFor(KEY)).toBe(`http://minio:9000/pics/${KEY}`);
  });

  it("prefers S3_PUBLIC_URL for S3 object URLs", () => {
    const storage = createMediaStorage(
      loadConfig({ MEDIA_STORAGE: "s3", S3_BUCKET: "pics", S3_PUBLIC_URL: "https://cdn.example.com/media/" }),
    );
    expect(storage.urlFor(KEY)).toBe(`https://cdn.example.com/media/${KEY}`);
  });
});
