import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestMedia } from "../../src/media/ingest.ts";
import { newMediaKey } from "../../src/media/media-key.ts";
import { S3MediaStorage } from "../../src/media/s3-storage.ts";
import { isSelfServed } from "../../src/media/storage.ts";
import { makeImage } from "./helpers/make-files.ts";
import { makeTempDir } from "./helpers/temp-dir.ts";

// s3rver ships no types; this is the part used here.
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  port: number;
  address: string;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;
const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;

const BUCKET = "media";
// s3rver accepts any signature made with its fixed development credentials.
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let s3rver: S3rverInstance;
let endpoint: string;
let client: S3Client;
let storage: S3MediaStorage;

beforeAll(async () => {
  temp = await makeTempDir("s3rver");
  s3rver = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory: temp.dir,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const address = await s3rver.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  storage = new S3MediaStorage({
    bucket: BUCKET,
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    ...CREDENTIALS,
  });
  client = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: CREDENTIALS });
});

afterAll(async () => {
  client?.destroy();
  await s3rver?.close();
  await temp?.remove();
});

async function exists(key: string): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    return true;
  } catch (error) {
    if (error instanceof NotFound || error instanceof NoSuchKey) return false;
    throw error;
  }
}

describe("S3MediaStorage against s3rver", () => {
  it("is not served by the service", () => {
    expect(isSelfServed(storage)).toBe(false);
  });

  it("puts an object with its content type and cache headers", async () => {
    const key = newMediaKey("ws1", "png");
    const png = await makeImage("png");
    await storage.put(key, png, "image/png");

    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(object.ContentType).toBe("image/png");
    expect(object.CacheControl).toBe("public, max-age=31536000, immutable");
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(png);
  });

  it("puts a streamed body with its content type, and refuses one shorter than announced", async () => {
    const key = newMediaKey("ws1", "png");
    const png = Buffer.from(await makeImage("png"));
    await storage.putStream(
      key,
      Readable.from([png.subarray(0, 7), png.subarray(7)]),
      png.byteLength,
      "image/png",
    );
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(object.ContentType).toBe("image/png");
    expect(object.CacheControl).toBe("public, max-age=31536000, immutable");
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(png);

    const short = newMediaKey("ws1", "png");
    await expect(
      storage.putStream(short, Readable.from([png.subarray(0, 7)]), png.byteLength, "image/png"),
    ).rejects.toThrow();
    expect(await exists(short)).toBe(false);
  });

  it("derives a path-style public URL that serves the object", async () => {
    const key = newMediaKey("ws1", "png");
    const png = await makeImage("png");
    await storage.put(key, png, "image/png");

    const url = storage.urlFor(key);
    expect(url).toBe(`${endpoint}/${BUCKET}/${key}`);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
  });

  it("deletes an object, and deleting a missing one is fine", async () => {
    const key = newMediaKey("ws1", "png");
    await storage.put(key, await makeImage("png"), "image/png");
    expect(await exists(key)).toBe(true);
    await storage.delete(key);
    expect(await exists(key)).toBe(false);
    expect((await fetch(storage.urlFor(key))).status).toBe(404);
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it("ingests into the bucket", async () => {
    const media = await ingestMedia({
      storage,
      workspaceId: "ws2",
      bytes: await makeImage("jpeg"),
      filename: "a.jpg",
    });
    expect(media).toMatchObject({ mimeType: "image/jpeg", width: 64, height: 48 });
    const object = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: media.storageKey }));
    expect(object.ContentType).toBe("image/jpeg");
    expect(object.ContentLength).toBe(media.size);
  });

  it("uses a configured public URL (a CDN) as is", () => {
    const cdn = new S3MediaStorage({
      bucket: BUCKET,
      region: "us-east-1",
      endpoint,
      publicUrl: "https://cdn.example.com/",
    });
    expect(cdn.urlFor("ws1/0123456789abcdef0123456789abcdef.png")).toBe(
      "https://cdn.example.com/ws1/0123456789abcdef0123456789abcdef.png",
    );
  });

  it("derives virtual-host and AWS URLs when no public URL is set", () => {
    const key = "ws1/0123456789abcdef0123456789abcdef.png";
    const vhost = new S3MediaStorage({
      bucket: "pics",
      region: "eu-west-1",
      endpoint: "https://s3.example.com",
    });
    expect(vhost.urlFor(key)).toBe(`https://pics.s3.example.com/${key}`);
    const aws = new S3MediaStorage({ bucket: "pics", region: "eu-west-1" });
    expect(aws.urlFor(key)).toBe(`https://pics.s3.eu-west-1.amazonaws.com/${key}`);
  });
});
