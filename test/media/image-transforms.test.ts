// GET /media/<key>?w=…&h=…&fit=…&fm=…&q=… on both storage backends: every answer is decoded with sharp and
// checked for its size, format, orientation, alpha and frames; every refusal by its status and body.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createStorageBackend } from "../../src/media/create-storage.ts";
import { newMediaKey } from "../../src/media/media-key.ts";
import {
  MEDIA_BACKENDS,
  type MediaBackend,
  startMediaBackend,
  storageKeyOf,
} from "../helpers/media-backends.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import { makeHugeCanvasPng, makePdf } from "./helpers/make-files.ts";
import {
  makeAlphaPng,
  makeAnimatedGif,
  makeAvif,
  makeRotatedJpeg,
  makeSvg,
  makeTruncatedJpeg,
  makeWebp,
} from "./helpers/make-images.ts";

const CACHE_FOREVER = "public, max-age=31536000, immutable";
const BROWSER_ACCEPT = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8";

interface Media {
  id: string;
  url: string;
}

describe.each(MEDIA_BACKENDS)("image transforms (%s storage)", (kind) => {
  let backend: MediaBackend;
  let ws: TestWorkspace;
  beforeAll(async () => {
    backend = await startMediaBackend(kind);
    ws = await backend.app.workspace();
  });
  afterAll(async () => backend?.close());

  async function upload(bytes: Uint8Array, filename: string) {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)]), filename);
    const response = await fetch(`${backend.app.url}/v1/media/upload`, {
      method: "POST",
      headers: { authorization: ws.privateKey },
      body: form,
    });
    return { status: response.status, body: await response.json() };
  }
  async function uploaded(bytes: Uint8Array, filename: string): Promise<Media> {
    const res = await upload(bytes, filename);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.media as Media;
  }
  /** The transform URL of a media item, on the service (whichever backend stores the file). */
  function transformUrl(media: Media, query: string): string {
    return `${backend.app.url}/media/${storageKeyOf(backend, media.url)}?${query}`;
  }
  async function get(url: string, headers: Record<string, string> = {}) {
    const response = await fetch(url, { headers });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { status: response.status, headers: response.headers, bytes };
  }
  const json = (bytes: Buffer) => JSON.parse(bytes.toString("utf8"));
  /** The RGBA of one pixel of an encoded image. */
  async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const i = (y * info.width + x) * 4;
    return [data[i] ?? -1, data[i + 1] ?? -1, data[i + 2] ?? -1, data[i + 3] ?? -1];
  }

  describe("answers", () => {
    it("applies a JPEG's EXIF orientation and strips its metadata", async () => {
      const media = await uploaded(await makeRotatedJpeg(), "rotated.jpg");
      const res = await get(transformUrl(media, "w=128"));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      const metadata = await sharp(res.bytes).metadata();
      // Stored 400×300 with orientation 6: displayed 300×400, so 128 wide is 171 high.
      expect([metadata.format, metadata.width, metadata.height]).toEqual(["jpeg", 128, 171]);
      expect(metadata.orientation).toBeUndefined();
      expect(metadata.exif).toBeUndefined();
      // The red left half of the stored pixels is the top once rotated clockwise.
      const [topRed = 0, , topBlue = 0] = await pixel(res.bytes, 64, 10);
      const [bottomRed = 0, , bottomBlue = 0] = await pixel(res.bytes, 64, 160);
      expect(topRed).toBeGreaterThan(200);
      expect(topBlue).toBeLessThan(60);
      expect(bottomBlue).toBeGreaterThan(200);
      expect(bottomRed).toBeLessThan(60);
    });

    it("keeps a PNG's alpha channel in PNG and WebP", async () => {
      const media = await uploaded(await makeAlphaPng(), "alpha.png");
      for (const [format, contentType] of [
        ["png", "image/png"],
        ["webp", "image/webp"],
      ] as const) {
        const res = await get(transformUrl(media, `w=128&fm=${format}`));
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe(contentType);
        const metadata = await sharp(res.bytes).metadata();
        expect([metadata.format, metadata.width, metadata.height, metadata.hasAlpha]).toEqual([
          format,
          128,
          96,
          true,
        ]);
        expect((await pixel(res.bytes, 10, 10))[3]).toBe(255);
        expect((await pixel(res.bytes, 10, 90))[3]).toBe(0);
      }
    });

    it("turns a WebP into an AVIF and an AVIF into a smaller AVIF", async () => {
      const webp = await uploaded(await makeWebp(), "picture.webp");
      const toAvif = await get(transformUrl(webp, "w=256&fm=avif&q=50"));
      expect(toAvif.headers.get("content-type")).toBe("image/avif");
      const avifMetadata = await sharp(toAvif.bytes).metadata();
      expect([avifMetadata.format, avifMetadata.width, avifMetadata.height]).toEqual(["heif", 256, 192]);
      expect(avifMetadata.compression).toBe("av1");

      const avif = await uploaded(await makeAvif(), "picture.avif");
      const smaller = await get(transformUrl(avif, "w=64"));
      expect(smaller.headers.get("content-type")).toBe("image/avif");
      const smallerMetadata = await sharp(smaller.bytes).metadata();
      expect([smallerMetadata.width, smallerMetadata.height, smallerMetadata.compression]).toEqual([
        64,
        48,
        "av1",
      ]);
    });

    it("fits into both sides: cover crops to the box, contain pads to it, inside stays within it", async () => {
      const media = await uploaded(await makeAlphaPng(), "box.png");
      const size = async (query: string) => {
        const res = await get(transformUrl(media, query));
        const { width, height } = await sharp(res.bytes).metadata();
        return [res.status, width, height];
      };
      expect(await size("w=96&h=96&fit=cover")).toEqual([200, 96, 96]);
      expect(await size("w=96&h=96&fit=contain")).toEqual([200, 96, 96]);
      expect(await size("w=96&h=96&fit=inside")).toEqual([200, 96, 72]);
      // Never enlarged: the original is 400 wide.
      expect(await size("w=640")).toEqual([200, 400, 300]);
    });

    it("never enlarges with cover or contain either: the box shrinks to the image, keeping its proportions", async () => {
      const tiny = await sharp({
        create: { width: 10, height: 10, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
      })
        .png()
        .toBuffer();
      const frames = async (media: Media, query: string) => {
        const res = await get(transformUrl(media, query));
        const { width, pageHeight, height, pages } = await sharp(res.bytes, { animated: true }).metadata();
        return [res.status, width, pageHeight ?? height, pages ?? 1];
      };
      const tinyPng = await uploaded(tiny, "tiny.png");
      expect(await frames(tinyPng, "w=3840&h=3840&fit=contain")).toEqual([200, 10, 10, 1]);
      expect(await frames(tinyPng, "w=3840&h=1920&fit=contain")).toEqual([200, 20, 10, 1]);
      const tinyGif = await uploaded(await makeAnimatedGif(14, 10, 10), "tiny.gif");
      expect(await frames(tinyGif, "w=3840&h=3840&fit=contain")).toEqual([200, 10, 10, 14]);
      // 400×300: contain pads it to the box's shape at its own size, cover crops it to that shape.
      const box = await uploaded(await makeAlphaPng(), "small-box.png");
      expect(await frames(box, "w=640&h=640&fit=contain")).toEqual([200, 400, 400, 1]);
      expect(await frames(box, "w=3840&h=3840&fit=cover")).toEqual([200, 300, 300, 1]);
    });

    it("counts the padding and every frame against the output pixel limit", async () => {
      // 14 frames of 16×2000 padded to a square: 2000×2000×14 = 56 Mpx to write, for 448,000 decoded.
      const strip = await uploaded(await makeAnimatedGif(14, 16, 2000), "strip.gif");
      const res = await get(transformUrl(strip, "w=2048&h=2048&fit=contain"));
      expect(res.status).toBe(422);
      expect(json(res.bytes)).toEqual({
        error: "Cannot transform this file",
        message: "The transform would write more pixels than allowed (16777216); ask for a smaller w or h",
        reason: "too-many-pixels",
      });
    });

    it("chooses the format from Accept with fm=auto, and says it varies by Accept", async () => {
      const media = await uploaded(await makeRotatedJpeg(), "auto.jpg");
      const cases = [
        [BROWSER_ACCEPT, "image/avif", "heif"],
        ["image/webp,*/*", "image/webp", "webp"],
        ["*/*", "image/jpeg", "jpeg"],
      ] as const;
      for (const [accept, contentType, format] of cases) {
        const res = await get(transformUrl(media, "w=64&fm=auto"), { accept });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe(contentType);
        expect(res.headers.get("vary")).toBe("Accept");
        expect((await sharp(res.bytes).metadata()).format).toBe(format);
      }
    });

    it("keeps an animated GIF animated (as GIF or WebP) and refuses a format that cannot animate", async () => {
      const media = await uploaded(await makeAnimatedGif(3), "animated.gif");
      for (const [query, format] of [
        ["w=96", "gif"],
        ["w=96&fm=webp", "webp"],
      ] as const) {
        const res = await get(transformUrl(media, query));
        expect(res.status).toBe(200);
        const metadata = await sharp(res.bytes, { animated: true }).metadata();
        expect([metadata.format, metadata.pages, metadata.width, metadata.pageHeight]).toEqual([
          format,
          3,
          96,
          72,
        ]);
      }
      const auto = await get(transformUrl(media, "w=96&fm=auto"), { accept: BROWSER_ACCEPT });
      expect(auto.headers.get("content-type")).toBe("image/webp");
      expect((await sharp(auto.bytes, { animated: true }).metadata()).pages).toBe(3);

      const refused = await get(transformUrl(media, "w=96&fm=jpeg"));
      expect(refused.status).toBe(422);
      expect(json(refused.bytes)).toEqual({
        error: "Cannot transform this file",
        message:
          "This image is animated; ask for fm=webp or fm=auto (or no fm) to keep it animated, jpeg cannot hold an animation",
        reason: "animation",
      });
    });
  });

  describe("stored variants", () => {
    it("computes a variant once, stores it beside its original and serves it like an original", async () => {
      const media = await uploaded(await makeRotatedJpeg(), "stored.jpg");
      const key = storageKeyOf(backend, media.url);
      const variant = `${key.slice(0, -".jpg".length)}/w256_inside_q75.webp`;
      const put = vi.spyOn(backend.app.mediaStorage, "put");
      try {
        const url = transformUrl(media, "w=256&fm=webp");
        const answers = await Promise.all(Array.from({ length: 6 }, () => get(url)));
        const later = await get(url);
        // Six requests at once and one after: one transform, one stored object.
        expect(put.mock.calls.map(([stored]) => stored)).toEqual([variant]);
        expect(await backend.storedKeys()).toContain(variant);
        for (const res of [...answers, later]) {
          expect(res.status).toBe(200);
          expect(res.bytes.equals(later.bytes)).toBe(true);
          expect(res.headers.get("cache-control")).toBe(CACHE_FOREVER);
          expect(res.headers.get("etag")).toBe(later.headers.get("etag"));
        }
        const etag = later.headers.get("etag") ?? "";
        expect(etag).toMatch(/^"[^"]+"$/);
        const revalidated = await get(url, { "if-none-match": etag });
        expect(revalidated.status).toBe(304);
      } finally {
        put.mockRestore();
      }
    });

    it("deletes the variants with the media item", async () => {
      const media = await uploaded(await makeAlphaPng(), "deleted.png");
      const key = storageKeyOf(backend, media.url);
      const prefix = `${key.slice(0, -".png".length)}/`;
      for (const query of ["w=64", "w=128&fm=webp", "w=96&h=96&fit=cover&fm=avif"])
        expect((await get(transformUrl(media, query))).status).toBe(200);
      expect((await backend.storedKeys()).filter((stored) => stored.startsWith(prefix))).toHaveLength(3);

      const res = await backend.app.request("DELETE", `/v1/media/${media.id}`, { key: ws.privateKey });
      expect(res.status).toBe(200);
      const left = await backend.storedKeys();
      expect(left.filter((stored) => stored.startsWith(prefix) || stored === key)).toEqual([]);
    });
  });

  describe("refusals", () => {
    it("refuses parameters outside the configured widths, qualities and fits, naming each", async () => {
      const media = await uploaded(await makeWebp(), "params.webp");
      const res = await get(transformUrl(media, "w=100&h=96&h=128&q=33&fm=gif&fit=fill"));
      expect(res.status).toBe(400);
      const widths = "16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840";
      expect(json(res.bytes)).toEqual({
        error: "Validation failed",
        message: "Invalid image transform",
        details: [
          { field: "w", message: `must be one of the configured widths: ${widths}` },
          { field: "h", message: "must be given once" },
          { field: "fit", message: "must be one of cover, contain, inside" },
          { field: "fm", message: "must be one of webp, avif, jpeg, png, auto" },
          { field: "q", message: "must be one of the configured qualities: 50, 60, 75, 80, 90, 100" },
        ],
      });
      const cover = await get(transformUrl(media, "w=96&fit=cover"));
      expect(cover.status).toBe(400);
      expect(json(cover.bytes).details).toEqual([{ field: "fit", message: "fit=cover needs both w and h" }]);
    });

    it("refuses to transform a file that is not a raster image", async () => {
      const pdf = await uploaded(makePdf(), "paper.pdf");
      const res = await get(transformUrl(pdf, "w=128"));
      expect(res.status).toBe(422);
      expect(json(res.bytes)).toEqual({
        error: "Cannot transform this file",
        message:
          "Only JPEG, PNG, GIF, WebP and AVIF images can be transformed; use the file's URL without parameters",
        reason: "not-an-image",
      });
    });

    it("never stores an SVG, so none is ever rasterised", async () => {
      const res = await upload(makeSvg(), "drawing.svg");
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Validation failed");
      expect(res.body.details).toEqual([{ field: "file", message: res.body.message }]);
    });

    it("refuses a decompression bomb from its header, without decoding it", async () => {
      const bomb = await uploaded(makeHugeCanvasPng(100_000, 100_000), "bomb.png");
      const started = performance.now();
      const res = await get(transformUrl(bomb, "w=640"));
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(res.status).toBe(422);
      expect(json(res.bytes)).toEqual({
        error: "Cannot transform this file",
        message:
          "The image has more pixels (100000×100000) than a transform decodes (50000000); use the original URL",
        reason: "too-many-pixels",
      });
    });

    it("refuses a truncated file: at upload, and when one is found in the store", async () => {
      const truncated = await makeTruncatedJpeg();
      const res = await upload(truncated, "cut.jpg");
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Validation failed");

      // A media item whose file was stored before the upload checked its pixels (or was damaged in the
      // store since): the transform refuses it all the same.
      const media = await uploaded(await makeRotatedJpeg(), "damaged.jpg");
      const key = storageKeyOf(backend, media.url);
      await createStorageBackend(backend.app.config).put(key, truncated, "image/jpeg");
      const transformed = await get(`${backend.app.url}/media/${key}?w=128`);
      expect(transformed.status).toBe(422);
      expect(json(transformed.bytes)).toEqual({
        error: "Cannot transform this file",
        message: "The image could not be decoded (VipsJpeg: premature end of JPEG image)",
        reason: "undecodable",
      });
    });

    it("answers 404 for a key that holds no file", async () => {
      const res = await get(`${backend.app.url}/media/${newMediaKey(ws.id, "png")}?w=128`);
      expect(res.status).toBe(404);
      expect(json(res.bytes)).toEqual({ error: "Not found", message: "No media file exists at this URL" });
    });
  });
});
