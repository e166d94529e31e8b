// The per-instance bound on transforms: with one slot and a short wait, a burst of new variants gets some
// images and, for the rest, the documented 503 with Retry-After in the contract's error body; and a burst
// against one workspace's images leaves another workspace's new variants a slot.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type MediaBackend, startMediaBackend, storageKeyOf } from "../helpers/media-backends.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import { makeNoiseJpeg, makeRotatedJpeg } from "./helpers/make-images.ts";
import { uploadMedia } from "./helpers/upload-media.ts";

async function upload(
  backend: MediaBackend,
  ws: TestWorkspace,
  bytes: Buffer,
  filename: string,
): Promise<string> {
  const media = await uploadMedia(backend.app.url, ws.privateKey, bytes, filename);
  return storageKeyOf(backend, media.url);
}

describe("transform concurrency bound", () => {
  let backend: MediaBackend;
  beforeAll(async () => {
    backend = await startMediaBackend("local", {
      MEDIA_TRANSFORM_CONCURRENCY: "1",
      MEDIA_TRANSFORM_QUEUE_WAIT_MS: "20",
    });
  });
  afterAll(async () => backend?.close());

  it("answers 503 with Retry-After once every slot stayed busy for the wait, and never anything else", async () => {
    expectServerErrors();
    const ws = await backend.app.workspace();
    // Noise compresses badly, so each AVIF encode of it takes a while.
    const media = await uploadMedia(
      backend.app.url,
      ws.privateKey,
      await makeNoiseJpeg(1600, 1200),
      "noise.jpg",
    );
    const base = `${backend.app.url}/media/${storageKeyOf(backend, media.url)}`;

    const widths = [256, 384, 640, 750, 828, 1080];
    const answers = await Promise.all(
      widths.map(async (width) => {
        const response = await fetch(`${base}?w=${width}&fm=avif`);
        return { status: response.status, headers: response.headers, body: await response.arrayBuffer() };
      }),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses).toContain(200);
    expect(statuses).toContain(503);
    for (const busy of answers.filter((answer) => answer.status === 503)) {
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(JSON.parse(Buffer.from(busy.body).toString("utf8"))).toEqual({
        error: "Service unavailable",
        message: "Too many images are being transformed at once; try again shortly",
      });
    }
    // The same request succeeds once the burst is over.
    const refused = widths[statuses.indexOf(503)];
    const retried = await fetch(`${base}?w=${refused}&fm=avif`);
    expect(retried.status).toBe(200);
    expect((await sharp(Buffer.from(await retried.arrayBuffer())).metadata()).width).toBe(refused);
  });
});

describe("transform slots shared between workspaces", () => {
  let backend: MediaBackend;
  beforeAll(async () => {
    backend = await startMediaBackend("local", {
      MEDIA_TRANSFORM_CONCURRENCY: "2",
      MEDIA_TRANSFORM_QUEUE_WAIT_MS: "3000",
    });
  }, 120_000);
  afterAll(async () => backend?.close());

  it("gives another workspace's new variant a slot while a burst holds up the first one's", async () => {
    expectServerErrors();
    const attacked = await backend.app.workspace();
    const other = await backend.app.workspace();
    const noise = await upload(backend, attacked, await makeNoiseJpeg(2400, 1800), "noise.jpg");
    const photo = await upload(backend, other, await makeRotatedJpeg(), "photo.jpg");

    const load = vi.spyOn(backend.app.mediaStorage, "load");
    const transforming = () => load.mock.calls.filter(([key]) => key === noise).length;
    try {
      // Eight slow new variants of the attacked workspace's image at once, from one client.
      const burst = [640, 750, 828, 1080, 1200, 1920, 2048, 384].map((width) =>
        fetch(`${backend.app.url}/media/${noise}?w=${width}&fm=avif`).then(
          (res) => res.status,
          () => -1,
        ),
      );
      // Once the burst's first transform has read its original, the rest of it is queued.
      await vi.waitFor(() => expect(transforming()).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      const res = await fetch(`${backend.app.url}/media/${photo}?w=64&fm=webp`);
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(3_000);
      const statuses = await Promise.all(burst);
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    } finally {
      load.mockRestore();
    }
  }, 120_000);
});
