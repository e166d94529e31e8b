// /v1/media through the REST door, on both storage backends: uploads of real files (type detected from
// the bytes, probed dimensions, duration and blurHash), the size limit, refused types, reading the file
// back, list filters and pagination, update and delete (the stored file goes too), and atomicity.
import { decode, isBlurhashValid } from "blurhash";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FORBIDDEN, notFoundBody } from "../helpers/expected-bodies.ts";
import {
  MEDIA_BACKENDS,
  type MediaBackend,
  startMediaBackend,
  storageKeyOf,
} from "../helpers/media-backends.ts";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { isoDate } from "../helpers/rest-fixtures.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import {
  makeElf,
  makeHugeCanvasPng,
  makeImage,
  makeMp4,
  makePdf,
  makePe,
  makeWav,
  pseudoRandomBytes,
} from "../media/helpers/make-files.ts";

type Body = Record<string, unknown>;
type Media = Body & { id: string; url: string; name: string; updatedAt: string };

const MAX_BYTES = 5 * 1024 * 1024;
const CACHE_FOREVER = "public, max-age=31536000, immutable";
const TOO_LARGE = { error: "Payload too large", message: "The file is larger than the limit of 5 MiB" };
const refusedType = (mime: string) => {
  const message = `Files of type ${mime} are not accepted; upload an image, video, audio file, PDF or office document`;
  return { error: "Validation failed", message, details: [{ field: "file", message }] };
};
const undecodable = (mime: string) => {
  const message = `Files of type ${mime} are not accepted when they cannot be decoded (the file is truncated or corrupt)`;
  return { error: "Validation failed", message, details: [{ field: "file", message }] };
};
const notFound = (id: string) => notFoundBody("Media", id);

/** A PNG padded with trailing bytes (ignored by decoders) to exactly `size` bytes. */
async function pngOfSize(size: number): Promise<Buffer> {
  const png = await makeImage("png");
  return Buffer.concat([png, Buffer.alloc(size - png.length)]);
}

function expectDecodableBlurHash(hash: unknown): void {
  expect(typeof hash).toBe("string");
  expect(isBlurhashValid(hash as string)).toEqual({ result: true });
  expect(decode(hash as string, 32, 24)).toHaveLength(32 * 24 * 4);
}

describe.each(MEDIA_BACKENDS)("media on %s storage", (kind) => {
  let backend: MediaBackend;
  let ws: TestWorkspace;
  beforeAll(async () => {
    backend = await startMediaBackend(kind);
    ws = await backend.app.workspace();
  });
  afterAll(async () => backend?.close());

  const app = () => backend.app;
  const urlPattern = (workspaceId: string, extension: string) =>
    expect.stringMatching(
      new RegExp(`^${escapeRegExp(backend.publicBase)}/${workspaceId}/[0-9a-f]{32}\\.${extension}$`),
    );

  async function upload(
    file: { bytes: Uint8Array; filename: string; type?: string } | null,
    fields: Record<string, string> = {},
    key: string | null = ws.privateKey,
  ) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (file)
      form.append(
        "file",
        new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "application/octet-stream" }),
        file.filename,
      );
    const response = await fetch(`${app().url}/v1/media/upload`, {
      method: "POST",
      headers: key ? { authorization: key } : {},
      body: form,
    });
    const res = { status: response.status, headers: response.headers, body: await response.json() };
    expectMatchesOpenApi(res, "post", "/v1/media/upload");
    return res;
  }
  async function uploaded(
    file: { bytes: Uint8Array; filename: string; type?: string },
    fields: Record<string, string> = {},
    key?: string,
  ) {
    const res = await upload(file, fields, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.media as Media;
  }
  const call = openApiClient(app, () => ws.privateKey);
  const get = (id: string, key?: string) =>
    call("GET", `/v1/media/${id}`, "/v1/media/{id}", { key: key ?? ws.privateKey });
  const patch = (id: string, body: unknown, key?: string) =>
    call("PATCH", `/v1/media/${id}`, "/v1/media/{id}", { body, key: key ?? ws.privateKey });
  const remove = (id: string, key?: string) =>
    call("DELETE", `/v1/media/${id}`, "/v1/media/{id}", { key: key ?? ws.privateKey });
  const recordCount = () => app().db.prisma.media.count();
  const fetchFile = (url: string) => fetch(backend.fetchable(url));

  /** Runs `act` and checks that it left neither a record nor a stored object behind. */
  async function expectNothingStored(act: () => Promise<void>): Promise<void> {
    const [keysBefore, recordsBefore] = [await backend.storedKeys(), await recordCount()];
    await act();
    expect(await backend.storedKeys()).toEqual(keysBefore);
    expect(await recordCount()).toBe(recordsBefore);
  }

  describe("POST /v1/media/upload", () => {
    it("stores a PNG: 201 {media} with every field, the file served back with long cache headers", async () => {
      const png = await makeImage("png", 64, 48);
      const res = await upload(
        { bytes: png, filename: "pixels.png", type: "image/png" },
        { alt: "A gradient" },
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        media: {
          id: expect.any(String),
          name: "pixels.png",
          url: urlPattern(ws.id, "png"),
          alt: "A gradient",
          size: png.length,
          mimeType: "image/png",
          width: 64,
          height: 48,
          duration: null,
          blurHash: expect.any(String),
          type: "image",
          createdAt: isoDate,
          updatedAt: isoDate,
        },
      });
      expectDecodableBlurHash(res.body.media.blurHash);
      expect(await backend.storedKeys()).toContain(storageKeyOf(backend, res.body.media.url));

      const file = await fetchFile(res.body.media.url);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
      expect(file.headers.get("cache-control")).toBe(CACHE_FOREVER);
      expect(Buffer.from(await file.arrayBuffer())).toEqual(png);
    });

    it("stores a JPEG under the given name", async () => {
      const jpeg = await makeImage("jpeg", 40, 90);
      const res = await upload(
        { bytes: jpeg, filename: "IMG_0001.JPG", type: "image/jpeg" },
        { name: "Tall sunset" },
      );
      expect(res.status).toBe(201);
      expect(res.body.media).toEqual({
        id: expect.any(String),
        name: "Tall sunset",
        url: urlPattern(ws.id, "jpg"),
        alt: null,
        size: jpeg.length,
        mimeType: "image/jpeg",
        width: 40,
        height: 90,
        duration: null,
        blurHash: expect.any(String),
        type: "image",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      expectDecodableBlurHash(res.body.media.blurHash);
      const file = await fetchFile(res.body.media.url);
      expect(file.headers.get("content-type")).toBe("image/jpeg");
      expect(Buffer.from(await file.arrayBuffer())).toEqual(jpeg);
    });

    it("stores a WAV with its duration in milliseconds", async () => {
      const wav = makeWav(1.5);
      const res = await upload({ bytes: wav, filename: "tone.wav", type: "audio/wav" });
      expect(res.status).toBe(201);
      expect(res.body.media).toEqual({
        id: expect.any(String),
        name: "tone.wav",
        url: urlPattern(ws.id, "wav"),
        alt: null,
        size: wav.length,
        mimeType: "audio/wav",
        width: null,
        height: null,
        duration: 1500,
        blurHash: null,
        type: "audio",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      const file = await fetchFile(res.body.media.url);
      expect(file.status).toBe(200);
      expect(file.headers.get("cache-control")).toBe(CACHE_FOREVER);
      expect(Buffer.from(await file.arrayBuffer())).toEqual(wav);
    });

    it("stores a PDF as a document", async () => {
      const pdf = makePdf();
      const res = await upload(
        { bytes: pdf, filename: "price list.pdf", type: "application/pdf" },
        { alt: "Prices" },
      );
      expect(res.status).toBe(201);
      expect(res.body.media).toEqual({
        id: expect.any(String),
        name: "price list.pdf",
        url: urlPattern(ws.id, "pdf"),
        alt: "Prices",
        size: pdf.length,
        mimeType: "application/pdf",
        width: null,
        height: null,
        duration: null,
        blurHash: null,
        type: "document",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      const file = await fetchFile(res.body.media.url);
      expect(file.headers.get("content-type")).toBe("application/pdf");
      expect(Buffer.from(await file.arrayBuffer())).toEqual(pdf);
    });

    it("stores an MP4 as a video with its size and duration", async () => {
      const mp4 = makeMp4({ width: 320, height: 240, durationMs: 2500 });
      const media = await uploaded({ bytes: mp4, filename: "clip.mp4", type: "video/mp4" });
      expect(media).toEqual({
        id: expect.any(String),
        name: "clip.mp4",
        url: urlPattern(ws.id, "mp4"),
        alt: null,
        size: mp4.length,
        mimeType: "video/mp4",
        width: 320,
        height: 240,
        duration: 2500,
        blurHash: null,
        type: "video",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
    });

    it("keeps a video whose details cannot be read, with nulls for them", async () => {
      const clip = await uploaded({
        bytes: makeMp4({ width: 320, height: 240, durationMs: 1000 }).subarray(0, 40),
        filename: "cut.mp4",
      });
      expect(clip).toMatchObject({
        type: "video",
        mimeType: "video/mp4",
        width: null,
        height: null,
        duration: null,
        blurHash: null,
      });
    });

    it("goes by the bytes, not the client's file name or claimed type", async () => {
      const png = await makeImage("png", 10, 10);
      const media = await uploaded({ bytes: png, filename: "report.pdf", type: "application/pdf" });
      expect(media).toMatchObject({
        name: "report.pdf",
        mimeType: "image/png",
        type: "image",
        url: urlPattern(ws.id, "png"),
        width: 10,
        height: 10,
      });
    });

    it("refuses an executable named .png with 400, storing nothing", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: makeElf(), filename: "cat.png", type: "image/png" });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(refusedType("application/x-elf"));
      });
    });

    it("refuses a Windows executable named .jpg with 400, storing nothing", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: makePe(), filename: "holiday.jpg", type: "image/jpeg" });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(refusedType("application/x-msdownload"));
      });
    });

    it.each([
      ["a PNG cut to 20 bytes", "image/png", async () => (await makeImage("png")).subarray(0, 20)],
      [
        "a PNG whose header is intact but pixel data cut short",
        "image/png",
        async () => (await makeImage("png")).subarray(0, 60),
      ],
      [
        "a JPEG cut in half",
        "image/jpeg",
        async () => {
          const jpeg = await makeImage("jpeg");
          return jpeg.subarray(0, jpeg.length / 2);
        },
      ],
    ])("refuses %s with 400: an image must decode, storing nothing", async (_label, mime, bytes) => {
      const file = { bytes: await bytes(), filename: "cut.img" };
      await expectNothingStored(async () => {
        const res = await upload(file);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(undecodable(mime));
      });
    });

    it("keeps a canvas too large to decode (a decompression bomb's header) with its header's size, no blurHash", async () => {
      const media = await uploaded({ bytes: makeHugeCanvasPng(20_000, 20_000), filename: "huge.png" });
      expect(media).toMatchObject({ mimeType: "image/png", width: 20_000, height: 20_000, blurHash: null });
    });

    it("refuses bytes of no recognisable type with 400", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: pseudoRandomBytes(2048), filename: "noise.png" });
        expect(res.status).toBe(400);
        const message =
          "The file's type could not be recognised from its contents; upload an image, video, audio file, PDF or office document";
        expect(res.body).toEqual({
          error: "Validation failed",
          message,
          details: [{ field: "file", message }],
        });
      });
    });

    it("accepts a file of exactly 5 MiB", async () => {
      const media = await uploaded({ bytes: await pngOfSize(MAX_BYTES), filename: "limit.png" });
      expect(media).toMatchObject({ size: MAX_BYTES, mimeType: "image/png", width: 64, height: 48 });
      const file = await fetchFile(media.url);
      expect((await file.arrayBuffer()).byteLength).toBe(MAX_BYTES);
    });

    it("refuses one byte more with a 413 JSON body, storing nothing", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: await pngOfSize(MAX_BYTES + 1), filename: "too-big.png" });
        expect(res.status).toBe(413);
        expect(res.headers.get("content-type")).toMatch(/^application\/json/);
        expect(res.body).toEqual(TOO_LARGE);
      });
    });

    it("refuses a far larger file with 413 too", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: await pngOfSize(8 * 1024 * 1024), filename: "huge.png" });
        expect(res.status).toBe(413);
        expect(res.body).toEqual(TOO_LARGE);
      });
    });

    it("needs a file", async () => {
      const res = await upload(null, { name: "No file" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Validation failed",
        message: "A file is required",
        details: [{ field: "file", message: "Required" }],
      });
    });

    it("needs a multipart form", async () => {
      const res = await call("POST", "/v1/media/upload", "/v1/media/upload", { body: { file: "aGVsbG8=" } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Validation failed",
        message: "Expected a multipart/form-data body",
        details: [{ field: "file", message: "Expected a multipart/form-data body" }],
      });
    });

    it("needs a private key: 403, storing nothing", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: await makeImage("png"), filename: "public.png" }, {}, ws.publicKey);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      });
    });

    it("needs a key: 401", async () => {
      const res = await upload({ bytes: await makeImage("png"), filename: "anonymous.png" }, {}, null);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: "Unauthorized",
        message: "An API key is required: send it in the Authorization header (`<key>` or `Bearer <key>`)",
      });
    });

    describe("a failed upload leaves no orphan file and no half-written record", () => {
      it("when storing the file fails", async () => {
        expectServerErrors();
        const put = vi.spyOn(app().mediaStorage, "put").mockRejectedValueOnce(new Error("disk full"));
        try {
          await expectNothingStored(async () => {
            const res = await upload({ bytes: await makeImage("png"), filename: "unlucky.png" });
            expect(res.status).toBe(500);
            expect(res.body).toEqual({
              error: "Internal server error",
              message: "Something went wrong on our side; the error has been logged",
            });
          });
          expect(put).toHaveBeenCalledTimes(1);
        } finally {
          put.mockRestore();
        }
      });

      it("when writing the record fails after the file was stored", async () => {
        expectServerErrors();
        const put = vi.spyOn(app().mediaStorage, "put");
        const create = vi
          .spyOn(app().db.prisma, "$transaction")
          .mockRejectedValueOnce(new Error("connection lost"));
        try {
          await expectNothingStored(async () => {
            const res = await upload({ bytes: await makeImage("png"), filename: "unlucky.png" });
            expect(res.status).toBe(500);
            expect(res.body).toEqual({
              error: "Internal server error",
              message: "Something went wrong on our side; the error has been logged",
            });
          });
          // The file had been stored before the record failed, and was removed again.
          expect(put).toHaveBeenCalledTimes(1);
          expect(create).toHaveBeenCalledTimes(1);
        } finally {
          put.mockRestore();
          create.mockRestore();
        }
      });
    });
  });

  describe("GET /v1/media", () => {
    let own: TestWorkspace;
    let byName: Record<string, Media>;
    const ownList = (query = "", key?: string) =>
      call("GET", `/v1/media${query}`, "/v1/media", { key: key ?? own.privateKey });
    const names = (res: { body: { media: Media[] } }) => res.body.media.map((m) => m.name);

    beforeAll(async () => {
      own = await backend.app.workspace("Library");
      byName = {};
      const files: [string, Uint8Array][] = [
        ["Sunset beach", await makeImage("png")],
        ["sunrise", await makeImage("jpeg")],
        ["Logo", await makeImage("png", 16, 16)],
        ["Theme song", makeWav(0.25)],
        ["Price list", makePdf()],
      ];
      for (const [name, bytes] of files) {
        byName[name] = await uploaded({ bytes, filename: "file" }, { name }, own.privateKey);
        // Distinct createdAt values, so the order is the upload order.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });

    it("lists the workspace's media, newest first, with pagination: 200 {media, pagination}", async () => {
      const res = await ownList("", own.publicKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        media: ["Price list", "Theme song", "Logo", "sunrise", "Sunset beach"].map((name) => byName[name]),
        pagination: {
          limit: 10,
          currentPage: 1,
          nextPage: null,
          previousPage: null,
          totalPages: 1,
          totalItems: 5,
        },
      });
    });

    it("order=asc lists oldest first", async () => {
      expect(names(await ownList("?order=asc"))).toEqual([
        "Sunset beach",
        "sunrise",
        "Logo",
        "Theme song",
        "Price list",
      ]);
    });

    it("type filters by kind", async () => {
      expect(names(await ownList("?type=image"))).toEqual(["Logo", "sunrise", "Sunset beach"]);
      expect(names(await ownList("?type=audio"))).toEqual(["Theme song"]);
      expect(names(await ownList("?type=document"))).toEqual(["Price list"]);
    });

    it("a filter matching nothing is an empty page", async () => {
      const res = await ownList("?type=video");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        media: [],
        pagination: {
          limit: 10,
          currentPage: 1,
          nextPage: null,
          previousPage: null,
          totalPages: 0,
          totalItems: 0,
        },
      });
    });

    it("query matches part of the name, case-insensitively, and combines with type", async () => {
      expect(names(await ownList("?query=SUN"))).toEqual(["sunrise", "Sunset beach"]);
      expect(names(await ownList("?query=list"))).toEqual(["Price list"]);
      expect(names(await ownList("?query=sun&type=image&order=asc"))).toEqual(["Sunset beach", "sunrise"]);
      expect(names(await ownList("?query=nothing-like-this"))).toEqual([]);
    });

    it("pages with limit and page", async () => {
      const first = await ownList("?limit=2");
      expect(names(first)).toEqual(["Price list", "Theme song"]);
      expect(first.body.pagination).toEqual({
        limit: 2,
        currentPage: 1,
        nextPage: 2,
        previousPage: null,
        totalPages: 3,
        totalItems: 5,
      });
      const second = await ownList("?limit=2&page=2");
      expect(names(second)).toEqual(["Logo", "sunrise"]);
      expect(second.body.pagination).toEqual({
        limit: 2,
        currentPage: 2,
        nextPage: 3,
        previousPage: 1,
        totalPages: 3,
        totalItems: 5,
      });
      const last = await ownList("?limit=2&page=3");
      expect(names(last)).toEqual(["Sunset beach"]);
      expect(last.body.pagination).toEqual({
        limit: 2,
        currentPage: 3,
        nextPage: null,
        previousPage: 2,
        totalPages: 3,
        totalItems: 5,
      });
      const filtered = await ownList("?type=image&limit=2&page=2");
      expect(names(filtered)).toEqual(["Sunset beach"]);
      expect(filtered.body.pagination).toMatchObject({ totalPages: 2, totalItems: 3 });
    });

    it("a page past the last one is a 400", async () => {
      const res = await ownList("?limit=2&page=4");
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Invalid page number",
        details: { message: "Page 4 does not exist; there are 3 pages", totalPages: 3, requestedPage: 4 },
      });
    });

    it("invalid parameters are a 400", async () => {
      const res = await ownList("?type=picture&order=newest");
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: "Validation failed", message: "Invalid query parameters" });
      expect(res.body.details.map((d: Body) => d.field)).toEqual(["type", "order"]);
    });

    it("shows only the caller's workspace", async () => {
      const other = await backend.app.workspace("Elsewhere");
      const res = await call("GET", "/v1/media", "/v1/media", { key: other.publicKey });
      expect(res.body).toEqual({
        media: [],
        pagination: {
          limit: 10,
          currentPage: 1,
          nextPage: null,
          previousPage: null,
          totalPages: 0,
          totalItems: 0,
        },
      });
    });
  });

  describe("GET /v1/media/{id}", () => {
    it("returns the record as uploaded: 200 {media}, with any key", async () => {
      const media = await uploaded(
        { bytes: await makeImage("png"), filename: "read-me.png" },
        { alt: "Read" },
      );
      const res = await get(media.id, ws.publicKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ media });
    });

    it("404 for an unknown id", async () => {
      const res = await get("no-such-media");
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound("no-such-media"));
    });

    it("404 for another workspace's media", async () => {
      const media = await uploaded({ bytes: await makeImage("png"), filename: "mine.png" });
      const other = await backend.app.workspace("Other");
      const res = await get(media.id, other.privateKey);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(media.id));
    });
  });

  describe("PATCH /v1/media/{id}", () => {
    let media: Media;
    beforeAll(async () => {
      media = await uploaded({ bytes: await makeImage("png"), filename: "editable.png" }, { alt: "Before" });
    });

    it("changes the name: 200 {media}; everything else stays, updatedAt moves", async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await patch(media.id, { name: "Renamed" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ media: { ...media, name: "Renamed", updatedAt: isoDate } });
      expect(new Date(res.body.media.updatedAt).getTime()).toBeGreaterThan(
        new Date(media.updatedAt).getTime(),
      );
      expect((await get(media.id)).body.media.name).toBe("Renamed");
    });

    it("changes the alt text and clears it with null", async () => {
      expect((await patch(media.id, { alt: "After" })).body.media).toMatchObject({
        name: "Renamed",
        alt: "After",
      });
      const cleared = await patch(media.id, { alt: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.media).toMatchObject({ name: "Renamed", alt: null });
    });

    it("an empty body changes nothing", async () => {
      const before = (await get(media.id)).body.media;
      const res = await patch(media.id, {});
      expect(res.status).toBe(200);
      expect(res.body.media).toEqual({ ...before, updatedAt: isoDate });
    });

    it("name has at least 1 character and is not null", async () => {
      const empty = await patch(media.id, { name: "" });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({
        error: "Validation failed",
        message: "Invalid request body",
        details: [{ field: "name", message: "Too small: expected string to have >=1 characters" }],
      });
      const nulled = await patch(media.id, { name: null });
      expect(nulled.status).toBe(400);
      expect(nulled.body.details).toEqual([
        { field: "name", message: "Invalid input: expected string, received null" },
      ]);
    });

    it("alt is a string or null", async () => {
      const res = await patch(media.id, { alt: 5 });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: "alt", message: "Invalid input: expected string, received number" },
      ]);
    });

    it("the file stays where it was", async () => {
      const current = (await get(media.id)).body.media;
      expect(current.url).toBe(media.url);
      expect((await fetchFile(current.url)).status).toBe(200);
    });

    it("needs a private key: 403", async () => {
      const res = await patch(media.id, { name: "Hijacked" }, ws.publicKey);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    });

    it("404 for an unknown id or another workspace's media", async () => {
      expect((await patch("no-such-media", { name: "X" })).body).toEqual(notFound("no-such-media"));
      const other = await backend.app.workspace("Other");
      const res = await patch(media.id, { name: "Hijacked" }, other.privateKey);
      expect(res.status).toBe(404);
      expect((await get(media.id)).body.media.name).not.toBe("Hijacked");
    });
  });

  describe("DELETE /v1/media/{id}", () => {
    it("removes the record and the stored file: 200 {id}", async () => {
      const media = await uploaded({ bytes: makeWav(0.1), filename: "short.wav" });
      const key = storageKeyOf(backend, media.url);
      expect(await backend.storedKeys()).toContain(key);

      const res = await remove(media.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: media.id });
      expect((await get(media.id)).status).toBe(404);
      expect(await backend.storedKeys()).not.toContain(key);
      expect((await fetchFile(media.url)).status).toBe(404);
    });

    it("404 once deleted, and for an unknown id", async () => {
      const media = await uploaded({ bytes: makePdf(), filename: "once.pdf" });
      expect((await remove(media.id)).status).toBe(200);
      const again = await remove(media.id);
      expect(again.status).toBe(404);
      expect(again.body).toEqual(notFound(media.id));
    });

    it("needs a private key, and cannot reach another workspace's media; the file stays", async () => {
      const media = await uploaded({ bytes: await makeImage("jpeg"), filename: "keep.jpg" });
      const forbidden = await remove(media.id, ws.publicKey);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual(FORBIDDEN);
      const other = await backend.app.workspace("Other");
      expect((await remove(media.id, other.privateKey)).status).toBe(404);
      expect((await get(media.id)).status).toBe(200);
      expect((await fetchFile(media.url)).status).toBe(200);
    });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
