// Media in an S3-compatible bucket (AWS S3, MinIO, R2, …), served by the bucket or a CDN in front of it.
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { bufferedObject } from "./buffered-object.ts";
import { exactLength } from "./exact-length.ts";
import type { MediaStorage, StorageCallOptions, StoredMediaObject } from "./storage.ts";

export interface S3MediaStorageOptions {
  bucket: string;
  region: string;
  /** Endpoint of a non-AWS store, e.g. "http://localhost:9000"; AWS itself when unset. */
  endpoint?: string | undefined;
  /** Static credentials; when unset the SDK's default chain applies (environment, instance role, …). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** Address buckets as `<endpoint>/<bucket>` rather than `<bucket>.<endpoint>`; most self-hosted stores need it. */
  forcePathStyle?: boolean | undefined;
  /**
   * Base URL objects are publicly readable under, e.g. a CDN ("https://cdn.example.com"); the key is appended.
   * When unset it is derived from the endpoint and bucket, which only works if the bucket allows public reads.
   */
  publicUrl?: string | undefined;
  /**
   * Milliseconds the client may wait to connect, and for the next byte once connected (a store that
   * went silent mid-request). The whole call's deadline is the caller's signal (storage-deadlines.ts).
   */
  timeoutMs?: number | undefined;
  /** A ready client, mainly for tests; the connection options above are then ignored. */
  client?: S3Client;
}

/** Objects are immutable (a new upload gets a new key), so caches may keep them for good. */
const CACHE_CONTROL = "public, max-age=31536000, immutable";

/** The AWS SDK (a hundred-odd files) loads only where S3 storage is configured, not with every server. */
const require = createRequire(import.meta.url);
const loadSdk = () => require("@aws-sdk/client-s3") as typeof import("@aws-sdk/client-s3");

export class S3MediaStorage implements MediaStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly publicBaseUrl: string;

  constructor(options: S3MediaStorageOptions) {
    this.bucket = options.bucket;
    this.client = options.client ?? createClient(options);
    this.publicBaseUrl = (options.publicUrl ?? derivedPublicUrl(options)).replace(/\/+$/, "");
  }

  async put(
    key: string,
    bytes: Uint8Array,
    contentType: string,
    { signal }: StorageCallOptions = {},
  ): Promise<void> {
    // A single PutObject is atomic: the object either appears whole or not at all.
    const { PutObjectCommand } = loadSdk();
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: contentType,
        CacheControl: CACHE_CONTROL,
      }),
      // Aborting destroys the request (and stops the SDK's retries) the moment the caller gives up.
      { abortSignal: signal },
    );
  }

  async putStream(
    key: string,
    body: Readable,
    size: number,
    contentType: string,
    { signal }: StorageCallOptions = {},
  ): Promise<void> {
    // One PutObject with a known length streams the body as it is sent: as atomic as `put`, and only
    // the socket's buffers in memory. (Multipart uploads are for objects far above MEDIA_MAX_BYTES.)
    const { PutObjectCommand } = loadSdk();
    // The SDK pipes the body into its request, which does not carry a body's error: a body that fails
    // (or ends short of its length) aborts the request itself, instead of leaving it waiting for bytes.
    const bodyFailed = new AbortController();
    let bodyError: unknown;
    const counted = exactLength(body, size, key).once("error", (error) => {
      bodyError = error;
      bodyFailed.abort(error);
    });
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: counted,
          ContentLength: size,
          ContentType: contentType,
          CacheControl: CACHE_CONTROL,
        }),
        { abortSignal: signal ? AbortSignal.any([signal, bodyFailed.signal]) : bodyFailed.signal },
      );
    } catch (error) {
      throw bodyError ?? error;
    }
  }

  async delete(key: string, { signal }: StorageCallOptions = {}): Promise<void> {
    // S3 answers a delete of a missing key with success, which is the idempotence the interface promises.
    const { DeleteObjectCommand } = loadSdk();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), {
      abortSignal: signal,
    });
  }

  /**
   * Reads the whole object into memory: what is loaded is an original of at most MEDIA_MAX_BYTES (to
   * transform it) or a variant (to send it), both small, and a buffer answers ranges without a second
   * request to the store.
   */
  async load(key: string, { signal }: StorageCallOptions = {}): Promise<StoredMediaObject | null> {
    const { GetObjectCommand, NoSuchKey } = loadSdk();
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: signal,
      });
      const body = answer.Body;
      if (!body) return null;
      return bufferedObject(Buffer.from(await body.transformToByteArray()));
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return null;
      throw error;
    }
  }

  /** Lists the prefix page by page and deletes each object (one request each: no multi-object delete,
   * which needs a checksum header several S3-compatible stores handle differently). */
  async deleteUnder(prefix: string, { signal }: StorageCallOptions = {}): Promise<void> {
    const { ListObjectsV2Command } = loadSdk();
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
        { abortSignal: signal },
      );
      for (const object of page.Contents ?? []) if (object.Key) await this.delete(object.Key, { signal });
      token = page.NextContinuationToken;
    } while (token);
  }

  urlFor(key: string): string {
    return `${this.publicBaseUrl}/${key.split("/").map(encodeURIComponent).join("/")}`;
  }
}

function createClient(options: S3MediaStorageOptions): S3Client {
  const { S3Client: Client } = loadSdk();
  return new Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // Since early 2025 (v3.729) the SDK adds CRC32 checksum headers to every upload by default, which
    // several S3-compatible stores (Backblaze B2, some MinIO, R2, OSS and COS versions) reject; this sends
    // them only for the operations that require one.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // Options of the SDK's own NodeHttpHandler (it builds the handler from them, so its package need not
    // be imported). Without them a store that accepts the connection and never answers holds the
    // request forever. No requestTimeout: an upload's whole-call deadline grows with its size, which the
    // caller's signal carries per call.
    requestHandler: options.timeoutMs
      ? { connectionTimeout: options.timeoutMs, socketTimeout: options.timeoutMs }
      : undefined,
  });
}

function derivedPublicUrl(options: S3MediaStorageOptions): string {
  if (!options.endpoint) return `https://${options.bucket}.s3.${options.region}.amazonaws.com`;
  const endpoint = new URL(options.endpoint);
  const base = endpoint.href.replace(/\/+$/, "");
  if (options.forcePathStyle) return `${base}/${encodeURIComponent(options.bucket)}`;
  return `${endpoint.protocol}//${options.bucket}.${endpoint.host}${endpoint.pathname.replace(/\/+$/, "")}`;
}
