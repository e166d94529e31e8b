// A test app on each media storage backend: the local disk (served by the app itself) and an
// S3-compatible object store (a real s3rver on a loopback port). Tests get the same handles for both:
// the app, the keys of every stored object, and a URL they can fetch a media `url` from.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { startTestApp, type TestApp } from "./test-app.ts";

export type MediaBackendKind = "local" | "s3";
export const MEDIA_BACKENDS: readonly MediaBackendKind[] = ["local", "s3"];

export interface MediaBackend {
  kind: MediaBackendKind;
  app: TestApp;
  /** The public base URL media URLs start with (no trailing slash). */
  publicBase: string;
  /** Keys of every object in the store, sorted. */
  storedKeys(): Promise<string[]>;
  /** Where the test can fetch a media `url` from (the local store is served by the app under test). */
  fetchable(url: string): string;
  close(): Promise<void>;
}

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

const BUCKET = "media";
// s3rver accepts any signature made with its fixed development credentials.
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** `env`: settings of the app under test beside the storage's own (MEDIA_TRANSFORM_CONCURRENCY, …). */
export async function startMediaBackend(
  kind: MediaBackendKind,
  env: Record<string, string> = {},
): Promise<MediaBackend> {
  return kind === "s3" ? startS3Backend(env) : startLocalBackend(env);
}

async function startLocalBackend(env: Record<string, string>): Promise<MediaBackend> {
  const app = await startTestApp({ env });
  const storage = app.config.media.storage;
  if (storage.kind !== "local") throw new Error("expected local media storage");
  const publicBase = `${app.config.publicUrl}/media`;
  return {
    kind: "local",
    app,
    publicBase,
    async storedKeys() {
      const entries = await readdir(storage.dir, { recursive: true, withFileTypes: true }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return [];
          throw error;
        },
      );
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) =>
          path.relative(storage.dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
        )
        .sort();
    },
    fetchable: (url) => app.url + new URL(url).pathname,
    close: () => app.close(),
  };
}

async function startS3Backend(env: Record<string, string>): Promise<MediaBackend> {
  const directory = await mkdtemp(path.join(tmpdir(), "s3rver-"));
  const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;
  const s3rver = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const address = await s3rver.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const publicBase = `${endpoint}/${BUCKET}`;
  const app = await startTestApp({
    env: {
      MEDIA_STORAGE: "s3",
      S3_ENDPOINT: endpoint,
      S3_BUCKET: BUCKET,
      S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      S3_PUBLIC_URL: publicBase,
      ...env,
    },
  });
  const client = new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: CREDENTIALS,
  });
  return {
    kind: "s3",
    app,
    publicBase,
    async storedKeys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    fetchable: (url) => url,
    async close() {
      await app.close();
      client.destroy();
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The storage key a media URL points at (the part after the public base). */
export function storageKeyOf(backend: MediaBackend, url: string): string {
  if (!url.startsWith(`${backend.publicBase}/`)) throw new Error(`${url} is not under ${backend.publicBase}`);
  return decodeURIComponent(url.slice(backend.publicBase.length + 1));
}
