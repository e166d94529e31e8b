// Media storage that stops answering: an object store frozen with SIGSTOP (a real s3rver in a child
// process), and a local disk whose open() never returns (a FIFO at the object's path: the kernel blocks
// the open until a writer appears, as a stalled network mount does). Every storage call has a deadline
// (MEDIA_STORAGE_TIMEOUT_MS): the request answers 503 with Retry-After and the contract's error body
// within it, leaves nothing behind, and the service works again once the storage is back.
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, rmSync } from "node:fs";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { type S3rverProcess, startS3rverProcess } from "../helpers/s3rver-process.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";

/** Short, so the test is quick; the deadline of an upload of a few KiB is this plus a few milliseconds. */
const TIMEOUT_MS = 1_000;
/** What a loaded CI machine may add to the deadline before the answer is out. */
const MARGIN_MS = 1_500;
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
const UNAVAILABLE = {
  error: "Storage unavailable",
  message: "The media storage did not answer in time; try again shortly",
};

async function timed<T>(act: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await act();
  return { result, ms: performance.now() - started };
}

async function uploadRest(app: TestApp, key: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "pixels.png");
  const response = await fetch(`${app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: key },
    body: form,
  });
  const res = { status: response.status, headers: response.headers, body: await response.json() };
  expectMatchesOpenApi(res, "post", "/v1/media/upload");
  return res;
}

async function uploadGraphql(app: TestApp, key: string, bytes: Uint8Array) {
  const form = new FormData();
  const query = "mutation Upload($file: Upload!) { uploadMedia(file: $file) { id } }";
  form.append("operations", JSON.stringify({ query, variables: { file: null } }));
  form.append("map", JSON.stringify({ 0: ["variables.file"] }));
  form.append("0", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "pixels.png");
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { authorization: key, accept: "application/graphql-response+json" },
    body: form,
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe("S3 storage frozen with SIGSTOP", () => {
  let s3: S3rverProcess;
  let app: TestApp;
  let ws: TestWorkspace;
  let client: S3Client;
  let png: Buffer;
  /** A media uploaded while the store was healthy. */
  let existing: { id: string; url: string };

  const storedKeys = async () => {
    const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    return (page.Contents ?? []).map((object) => object.Key).sort();
  };
  const keyOf = (url: string) => new URL(url).pathname.split("/").slice(2).join("/");

  beforeAll(async () => {
    s3 = await startS3rverProcess();
    app = await startTestApp({
      env: {
        MEDIA_STORAGE: "s3",
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        S3_PUBLIC_URL: `${s3.endpoint}/${s3.bucket}`,
        MEDIA_STORAGE_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    client = new S3Client({
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: CREDENTIALS,
    });
    ws = await app.workspace();
    png = await makeImage("png");
    const res = await uploadRest(app, ws.privateKey, png);
    expect(res.status).toBe(201);
    existing = res.body.media;
  });

  afterAll(async () => {
    // First, whatever failed: a stopped child must be thawed and killed.
    await s3?.stop();
    client?.destroy();
    await app?.close();
  });

  describe("while frozen", () => {
    beforeAll(() => s3.freeze());

    it("an upload answers 503 with Retry-After and the contract's body within the deadline, and writes no record", async () => {
      expectServerErrors();
      const records = await app.db.prisma.media.count();
      const { result: res, ms } = await timed(() => uploadRest(app, ws.privateKey, png));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.body).toEqual(UNAVAILABLE);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      expect(await app.db.prisma.media.count()).toBe(records);
    });

    it("a GraphQL upload answers 503 with STORAGE_UNAVAILABLE and Retry-After within the deadline", async () => {
      expectServerErrors();
      const { result: res, ms } = await timed(() => uploadGraphql(app, ws.privateKey, png));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.body).toEqual({
        data: null,
        errors: [
          {
            message: UNAVAILABLE.message,
            path: ["uploadMedia"],
            locations: expect.any(Array),
            extensions: { code: "STORAGE_UNAVAILABLE", retryAfterSeconds: 1 },
          },
        ],
      });
      expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    });

    it("a media GET answers at once: it reads the database only, the bucket serves the file itself", async () => {
      const { result: res, ms } = await timed(() =>
        app.request("GET", `/v1/media/${existing.id}`, { key: ws.privateKey }),
      );
      expect(res.status).toBe(200);
      expect(res.body.media).toMatchObject({ id: existing.id, url: existing.url });
      expect(ms).toBeLessThan(TIMEOUT_MS);
    });

    it("a delete removes the record within the deadline; the object is removed once the store is back", async () => {
      const { result: res, ms } = await timed(() =>
        app.request("DELETE", `/v1/media/${existing.id}`, { key: ws.privateKey }),
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: existing.id });
      expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      const gone = await app.request("GET", `/v1/media/${existing.id}`, { key: ws.privateKey });
      expect(gone.status).toBe(404);
    });
  });

  describe("after SIGCONT", () => {
    beforeAll(() => s3.thaw());

    it("uploads work again, and neither the timed-out uploads nor the deleted media left an object", async () => {
      const res = await uploadRest(app, ws.privateKey, png);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await app.db.prisma.media.count()).toBe(1);
      // The frozen store still held the abandoned PUTs in its socket buffers and may complete them when
      // thawed; the service keeps removing their keys (and the deleted media's) until the store answers.
      await vi.waitFor(async () => expect(await storedKeys()).toEqual([keyOf(res.body.media.url)]), {
        timeout: 10 * TIMEOUT_MS,
        interval: 200,
      });
    });
  });
});

describe("local storage whose disk stops answering", () => {
  let app: TestApp;
  let ws: TestWorkspace;
  let fifo: string | undefined;

  /** Lets an open() blocked on the FIFO return (a writer appears), then removes it. */
  const releaseFifo = () => {
    if (!fifo) return;
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch (error) {
      // ENXIO: no reader is blocked on it, so there is nothing to release.
      if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
    }
    rmSync(fifo, { force: true });
    fifo = undefined;
  };

  beforeAll(async () => {
    app = await startTestApp({ env: { MEDIA_STORAGE_TIMEOUT_MS: String(TIMEOUT_MS) } });
    ws = await app.workspace();
  });

  afterAll(async () => {
    if (fifo) releaseFifo();
    await app?.close();
  });

  it("a media GET answers 503 with Retry-After and the contract's body within the deadline", async () => {
    const res = await uploadRest(app, ws.privateKey, await makeImage("png"));
    expect(res.status).toBe(201);
    const mediaPath = new URL(res.body.media.url).pathname;
    const storage = app.config.media.storage;
    if (storage.kind !== "local") throw new Error("expected local media storage");
    // The object's file becomes a FIFO: opening it blocks in the kernel, the way a hung mount does.
    const file = path.join(storage.dir, ...mediaPath.split("/").slice(2));
    rmSync(file);
    execFileSync("mkfifo", [file]);
    fifo = file;

    expectServerErrors();
    const { result: served, ms } = await timed(() => fetch(app.url + mediaPath));
    expect(served.status).toBe(503);
    expect(served.headers.get("retry-after")).toBe("1");
    expect(await served.json()).toEqual(UNAVAILABLE);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);

    // The disk answers again (here: the FIFO goes away): the key is simply missing now.
    releaseFifo();
    expect((await fetch(app.url + mediaPath)).status).toBe(404);
  });
});
