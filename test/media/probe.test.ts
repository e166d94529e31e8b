import { decode, isBlurhashValid } from "blurhash";
import sharp from "sharp";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { MediaType as DbMediaType } from "../../src/generated/prisma/enums.ts";
import { allowedMediaTypes, type MediaType } from "../../src/media/allowed-types.ts";
import { detectMediaType } from "../../src/media/detect-type.ts";
import { probeMedia } from "../../src/media/probe.ts";
import {
  makeCfb,
  makeDocx,
  makeElf,
  makeHugeCanvasPng,
  makeImage,
  makeMp4,
  makeOdt,
  makePdf,
  makePe,
  makeWav,
  pseudoRandomBytes,
} from "./helpers/make-files.ts";

function expectValidBlurHash(hash: string | null) {
  expect(hash).toEqual(expect.any(String));
  expect(isBlurhashValid(hash!)).toEqual({ result: true });
  const pixels = decode(hash!, 32, 24);
  expect(pixels).toHaveLength(32 * 24 * 4);
}

describe("allow-list", () => {
  it("uses the database's media types", () => {
    expectTypeOf<MediaType>().toEqualTypeOf<DbMediaType>();
  });

  it("gives every entry a path-safe extension", () => {
    for (const entry of allowedMediaTypes()) expect(entry.extension).toMatch(/^[a-z0-9]{1,5}$/);
  });
});

describe("probeMedia: images", () => {
  it.each(["png", "jpeg", "webp", "gif"] as const)("reads size and blurHash of a %s", async (format) => {
    const probe = await probeMedia(await makeImage(format));
    expect(probe).toMatchObject({ type: "image", width: 64, height: 48, duration: null });
    expect(probe?.mimeType).toBe(format === "jpeg" ? "image/jpeg" : `image/${format}`);
    expectValidBlurHash(probe?.blurHash ?? null);
  });

  it("gives PNG and JPEG their canonical extensions", async () => {
    expect((await probeMedia(await makeImage("png")))?.extension).toBe("png");
    expect((await probeMedia(await makeImage("jpeg")))?.extension).toBe("jpg");
  });

  it("reports the displayed size of a JPEG rotated by EXIF orientation", async () => {
    const rotated = await sharp(await makeImage("jpeg"))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const probe = await probeMedia(rotated);
    expect(probe).toMatchObject({ width: 48, height: 64 });
    expectValidBlurHash(probe?.blurHash ?? null);
  });

  it.each(["png", "jpeg", "webp", "gif"] as const)(
    "refuses a %s whose pixel data is cut short",
    async (format) => {
      const image = await makeImage(format);
      for (const length of [20, 60, Math.floor(image.length / 2)])
        expect(await probeMedia(image.subarray(0, length)), `${length} bytes`).toBeNull();
    },
  );

  it("refuses an image whose pixel data is corrupt", async () => {
    const jpeg = Buffer.from(await makeImage("jpeg"));
    for (let i = 200; i < 400; i++) jpeg[i] = (jpeg[i] as number) ^ 0xff;
    expect(await probeMedia(jpeg)).toBeNull();
  });

  it("keeps a canvas above the decoding limit undecoded: the header's size, no blurHash", async () => {
    // 400 megapixels: decoding it is what the limit prevents, so its pixels are never checked.
    const probe = await probeMedia(makeHugeCanvasPng(20_000, 20_000));
    expect(probe).toMatchObject({ mimeType: "image/png", width: 20_000, height: 20_000, blurHash: null });
  });
});

describe("probeMedia: audio and video", () => {
  it("reads the duration of a WAV in milliseconds", async () => {
    const probe = await probeMedia(makeWav(0.5));
    expect(probe).toMatchObject({
      type: "audio",
      mimeType: "audio/wav",
      extension: "wav",
      width: null,
      blurHash: null,
    });
    expect(probe?.duration).toBeGreaterThanOrEqual(499);
    expect(probe?.duration).toBeLessThanOrEqual(501);
    expect(Number.isInteger(probe?.duration)).toBe(true);
  });

  it("reads an MP4's size from its video track header and its duration", async () => {
    const probe = await probeMedia(makeMp4({ width: 320, height: 240, durationMs: 1500 }));
    expect(probe).toMatchObject({
      type: "video",
      mimeType: "video/mp4",
      extension: "mp4",
      width: 320,
      height: 240,
      duration: 1500,
      blurHash: null,
    });
  });

  it("reports the displayed size of a portrait phone video", async () => {
    const probe = await probeMedia(makeMp4({ width: 320, height: 240, durationMs: 1000, rotate90: true }));
    expect(probe).toMatchObject({ width: 240, height: 320 });
  });

  it("keeps a video whose details cannot be read, with nulls", async () => {
    const mp4 = makeMp4({ width: 320, height: 240, durationMs: 1000 });
    const probe = await probeMedia(mp4.subarray(0, 40));
    expect(probe).toMatchObject({ type: "video", width: null, height: null, duration: null });
  });
});

describe("probeMedia: documents", () => {
  it("accepts a PDF", async () => {
    expect(await probeMedia(makePdf())).toEqual({
      mimeType: "application/pdf",
      extension: "pdf",
      type: "document",
      width: null,
      height: null,
      duration: null,
      blurHash: null,
    });
  });

  it("accepts .docx and .odt", async () => {
    expect(await probeMedia(makeDocx())).toMatchObject({ extension: "docx", type: "document" });
    expect(await probeMedia(makeOdt())).toMatchObject({ extension: "odt", type: "document" });
  });

  it("tells legacy .doc, .xls and .ppt apart inside the CFB container", async () => {
    const doc = makeCfb([
      { name: "WordDocument", kind: "stream" },
      { name: "1Table", kind: "stream" },
    ]);
    const xls = makeCfb([{ name: "Workbook", kind: "stream" }]);
    const ppt = makeCfb([
      { name: "Current User", kind: "stream" },
      { name: "PowerPoint Document", kind: "stream" },
    ]);
    expect(await probeMedia(doc)).toMatchObject({ mimeType: "application/msword", extension: "doc" });
    expect(await probeMedia(xls)).toMatchObject({ mimeType: "application/vnd.ms-excel", extension: "xls" });
    expect(await probeMedia(ppt)).toMatchObject({
      mimeType: "application/vnd.ms-powerpoint",
      extension: "ppt",
    });
  });

  it("follows a directory spanning several sectors", async () => {
    const padding = Array.from({ length: 9 }, (_, i) => ({ name: `Stream${i}`, kind: "stream" as const }));
    const doc = makeCfb([...padding, { name: "WordDocument", kind: "stream" }]);
    expect(await probeMedia(doc)).toMatchObject({ extension: "doc" });
  });
});

describe("refused files", () => {
  it.each([
    ["an ELF executable", makeElf(), "application/x-elf"],
    ["a Windows executable", makePe(), "application/x-msdownload"],
  ])("refuses %s whatever its name", async (_label, bytes, mime) => {
    expect(await probeMedia(bytes)).toBeNull();
    expect(await detectMediaType(bytes)).toEqual({ allowed: null, detectedMime: mime });
  });

  it("refuses random bytes as unrecognisable", async () => {
    const bytes = pseudoRandomBytes(4096);
    expect(await probeMedia(bytes)).toBeNull();
    expect(await detectMediaType(bytes)).toEqual({ allowed: null, detectedMime: null });
  });

  it("refuses an empty file", async () => {
    expect(await probeMedia(new Uint8Array())).toBeNull();
  });

  it("refuses SVG, even a harmless one", async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>',
    );
    expect(await probeMedia(svg)).toBeNull();
  });

  it("refuses macro-enabled Office files", async () => {
    expect(await detectMediaType(makeDocx({ macros: true }))).toMatchObject({
      allowed: null,
      detectedMime: "application/vnd.ms-word.document.macroenabled.12",
    });
    const docWithMacros = makeCfb([
      { name: "WordDocument", kind: "stream" },
      { name: "Macros", kind: "storage" },
    ]);
    expect(await detectMediaType(docWithMacros)).toEqual({
      allowed: null,
      detectedMime: "application/msword",
      reason: "they contain macros",
    });
  });

  it("refuses other CFB files, such as an MSI installer", async () => {
    const msi = makeCfb([
      { name: "\u4840\u3f3f\u4577\u446c", kind: "stream" },
      { name: "SummaryInformation", kind: "stream" },
    ]);
    expect(await detectMediaType(msi)).toEqual({ allowed: null, detectedMime: "application/x-cfb" });
  });

  it("refuses a truncated CFB file", async () => {
    const doc = makeCfb([{ name: "WordDocument", kind: "stream" }]);
    expect(await probeMedia(doc.subarray(0, 700))).toBeNull();
  });
});
