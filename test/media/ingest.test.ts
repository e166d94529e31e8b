import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { isBlurhashValid } from "blurhash";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { discardStoredMedia, ingestMedia, ingestMediaFile } from "../../src/media/ingest.ts";
import { LocalMediaStorage } from "../../src/media/local-storage.ts";
import type { MediaStorage } from "../../src/media/storage.ts";
import { UnsupportedMediaTypeError, UploadTooLargeError } from "../../src/media/upload-errors.ts";
import { makeCfb, makeElf, makeImage, makePdf, makeWav, pseudoRandomBytes } from "./helpers/make-files.ts";
import { listFiles, makeTempDir } from "./helpers/temp-dir.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let storage: LocalMediaStorage;

beforeEach(async () => {
  temp = await makeTempDir("ingest");
  storage = new LocalMediaStorage({ dir: temp.dir, publicBaseUrl: "https://cms.example.com" });
});

afterEach(async () => {
  await temp.remove();
});

describe("ingestMedia", () => {
  it("probes and stores an image under a server-chosen key", async () => {
    const png = await makeImage("png");
    const media = await ingestMedia({
      storage,
      workspaceId: "ws_1",
      bytes: png,
      filename: "../../etc/passwd.png",
    });
    expect(media).toEqual({
      storageKey: expect.stringMatching(/^ws_1\/[0-9a-f]{32}\.png$/),
      size: png.length,
      mimeType: "image/png",
      type: "image",
      width: 64,
      height: 48,
      duration: null,
      blurHash: expect.any(String),
      contentHash: createHash("sha256").update(png).digest("hex"),
    });
    expect(isBlurhashValid(media.blurHash!).result).toBe(true);
    expect(await readFile(path.join(temp.dir, ...media.storageKey.split("/")))).toEqual(png);
    expect(storage.urlFor(media.storageKey)).toBe(`https://cms.example.com/media/${media.storageKey}`);
  });

  it("stores audio and documents with their detected types", async () => {
    const wav = await ingestMedia({ storage, workspaceId: "ws", bytes: makeWav(0.5) });
    expect(wav).toMatchObject({ type: "audio", mimeType: "audio/wav", duration: 500 });
    expect(wav.storageKey).toMatch(/\.wav$/);
    const pdf = await ingestMedia({ storage, workspaceId: "ws", bytes: makePdf() });
    expect(pdf).toMatchObject({ type: "document", mimeType: "application/pdf", width: null, blurHash: null });
    expect(await listFiles(temp.dir)).toHaveLength(2);
  });

  it("refuses an executable named .png, naming its real type, and stores nothing", async () => {
    const attempt = ingestMedia({ storage, workspaceId: "ws", bytes: makeElf(), filename: "photo.png" });
    await expect(attempt).rejects.toThrow(UnsupportedMediaTypeError);
    await expect(attempt).rejects.toMatchObject({
      status: 400,
      detectedMimeType: "application/x-elf",
      message: expect.stringContaining("application/x-elf"),
    });
    expect(await listFiles(temp.dir)).toEqual([]);
  });

  it("refuses unrecognisable bytes, saying so", async () => {
    const attempt = ingestMedia({ storage, workspaceId: "ws", bytes: pseudoRandomBytes(2048) });
    await expect(attempt).rejects.toMatchObject({
      detectedMimeType: null,
      message: expect.stringContaining("could not be recognised"),
    });
    expect(await listFiles(temp.dir)).toEqual([]);
  });

  it("says why a recognised type was refused", async () => {
    const doc = makeCfb([
      { name: "WordDocument", kind: "stream" },
      { name: "Macros", kind: "storage" },
    ]);
    await expect(ingestMedia({ storage, workspaceId: "ws", bytes: doc })).rejects.toThrow(
      "Files of type application/msword are not accepted when they contain macros",
    );
  });

  it("refuses bytes above maxBytes", async () => {
    const attempt = ingestMedia({ storage, workspaceId: "ws", bytes: makeWav(0.5), maxBytes: 100 });
    await expect(attempt).rejects.toThrow(UploadTooLargeError);
    await expect(attempt).rejects.toMatchObject({ status: 413, maxBytes: 100 });
  });

  it("refuses a workspace id that would make an unsafe key", async () => {
    await expect(ingestMedia({ storage, workspaceId: "../x", bytes: makePdf() })).rejects.toThrow(TypeError);
    expect(await listFiles(temp.dir)).toEqual([]);
  });

  it("removes the object and rethrows when storing fails", async () => {
    const failure = new Error("connection reset");
    const failing: MediaStorage = {
      put: vi.fn().mockRejectedValue(failure),
      delete: vi.fn().mockResolvedValue(undefined),
      putStream: async () => {},
      urlFor: (key) => key,
      load: async () => null,
      deleteUnder: async () => {},
    };
    await expect(ingestMedia({ storage: failing, workspaceId: "ws", bytes: makePdf() })).rejects.toBe(
      failure,
    );
    const key = vi.mocked(failing.put).mock.calls[0]?.[0];
    expect(failing.delete).toHaveBeenCalledWith(key);
  });
});

describe("ingestMediaFile (an import's file, streamed)", () => {
  let input: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => {
    input = await makeTempDir("ingest-input");
  });
  afterEach(async () => {
    await input.remove();
  });
  const fileOf = async (name: string, bytes: Uint8Array) => {
    const file = path.join(input.dir, name);
    await writeFile(file, bytes);
    return file;
  };

  it("detects, probes and stores what ingestMedia would from the same bytes", async () => {
    for (const [name, bytes] of [
      ["a.png", await makeImage("png")],
      ["b.jpg", await makeImage("jpeg")],
      ["c.wav", makeWav(0.5)],
      ["d.pdf", makePdf()],
      ["e.doc", makeCfb([{ name: "WordDocument", kind: "stream" }])],
    ] as const) {
      const fromFile = await ingestMediaFile({ storage, workspaceId: "ws", file: await fileOf(name, bytes) });
      const fromBytes = await ingestMedia({ storage, workspaceId: "ws", bytes });
      expect({ ...fromFile, storageKey: fromFile.storageKey.slice(-4) }).toEqual({
        ...fromBytes,
        storageKey: fromBytes.storageKey.slice(-4),
      });
      expect(await readFile(path.join(temp.dir, ...fromFile.storageKey.split("/")))).toEqual(
        Buffer.from(bytes),
      );
    }
  });

  it("refuses what ingestMedia refuses, storing nothing", async () => {
    const macros = makeCfb([
      { name: "WordDocument", kind: "stream" },
      { name: "Macros", kind: "storage" },
    ]);
    await expect(
      ingestMediaFile({ storage, workspaceId: "ws", file: await fileOf("m.doc", macros) }),
    ).rejects.toThrow("not accepted when they contain macros");
    await expect(
      ingestMediaFile({ storage, workspaceId: "ws", file: await fileOf("x.png", makeElf()) }),
    ).rejects.toMatchObject({ detectedMimeType: "application/x-elf" });
    const png = await makeImage("png");
    await expect(
      ingestMediaFile({ storage, workspaceId: "ws", file: await fileOf("cut.png", png.subarray(0, 200)) }),
    ).rejects.toThrow(UnsupportedMediaTypeError);
    await expect(
      ingestMediaFile({ storage, workspaceId: "ws", file: await fileOf("big.png", png), maxBytes: 100 }),
    ).rejects.toThrow(UploadTooLargeError);
    expect(await listFiles(temp.dir)).toEqual([]);
  });
});

describe("discardStoredMedia", () => {
  it("removes the stored object (the rollback after a failed database write)", async () => {
    const media = await ingestMedia({ storage, workspaceId: "ws", bytes: makePdf() });
    const file = path.join(temp.dir, ...media.storageKey.split("/"));
    expect(existsSync(file)).toBe(true);
    expect(await discardStoredMedia(storage, media.storageKey)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it("logs instead of throwing when the removal fails, so the original error surfaces; retries", async () => {
    const failing: MediaStorage = {
      put: async () => {},
      delete: async () => {
        throw new Error("bucket unreachable");
      },
      putStream: async () => {},
      urlFor: (key) => key,
      load: async () => null,
      deleteUnder: async () => {},
    };
    const warn = vi.fn();
    expect(await discardStoredMedia(failing, "ws/key.png", { warn })).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("retrying in the background"), {
      storageKey: "ws/key.png",
      error: "bucket unreachable",
    });
  });
});
