// The per-instance bound on transforms: with one slot and a short wait, a burst of new variants gets some
// images and, for the rest, the documented 503 with Retry-After in the contract's error body.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaBackend, startMediaBackend, storageKeyOf } from "../helpers/media-backends.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";

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
    const noise = await sharp({
      create: {
        width: 1600,
        height: 1200,
        channels: 3,
        background: "#808080",
        noise: { type: "gaussian", mean: 128, sigma: 60 },
      },
    })
      .jpeg({ quality: 70 })
      .toBuffer();
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(noise)]), "noise.jpg");
    const upload = await fetch(`${backend.app.url}/v1/media/upload`, {
      method: "POST",
      headers: { authorization: ws.privateKey },
      body: form,
    });
    expect(upload.status).toBe(201);
    const { media } = (await upload.json()) as { media: { url: string } };
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
