// Media through GraphQL, on both storage backends: uploadMedia over HTTP with the GraphQL multipart
// request convention (real files; size limit; refused types; nothing stored on failure), and the
// media, mediaList, updateMedia and deleteMedia operations.
import { decode, isBlurhashValid } from "blurhash";
import type { ExecutionResult } from "graphql";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  MEDIA_BACKENDS,
  type MediaBackend,
  startMediaBackend,
  storageKeyOf,
} from "../helpers/media-backends.ts";
import { isoDate } from "../helpers/rest-fixtures.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import { makeElf, makeImage, makePdf, makeWav } from "../media/helpers/make-files.ts";

type Body = Record<string, unknown>;
type Media = Body & { id: string; url: string; name: string; updatedAt: string };

const MAX_BYTES = 5 * 1024 * 1024;
const MEDIA = "id name url alt size mimeType width height duration blurHash type createdAt updatedAt";
const UPLOAD = `mutation Upload($file: Upload!, $name: String, $alt: String) { uploadMedia(file: $file, name: $name, alt: $alt) { ${MEDIA} } }`;
/** Where errors of the upload field point (line 1). */
const UPLOAD_LOCATION = [{ line: 1, column: UPLOAD.indexOf("uploadMedia(") + 1 }];
const GET = `query Get($id: ID!) { media(id: $id) { ${MEDIA} } }`;
const LIST = `query List($limit: Int, $page: Int, $type: MediaType, $query: String, $order: SortOrder) {
  mediaList(limit: $limit, page: $page, type: $type, query: $query, order: $order) {
    items { ${MEDIA} }
    pagination { limit currentPage nextPage previousPage totalPages totalItems }
  }
}`;
const UPDATE = `mutation Update($id: ID!, $name: String, $alt: String) { updateMedia(id: $id, name: $name, alt: $alt) { ${MEDIA} } }`;
const DELETE = "mutation Delete($id: ID!) { deleteMedia(id: $id) { id } }";

const errorsOf = (result: ExecutionResult) =>
  result.errors?.map((error) => ({ message: error.message, extensions: error.extensions }));
const notFound = (id: string) => [
  {
    message: `Media "${id}" does not exist in this workspace`,
    extensions: { code: "NOT_FOUND", http: { status: 404 }, resource: "Media" },
  },
];
const FORBIDDEN_MESSAGE = "Writes need a private API key; this key is public and can only read";

async function pngOfSize(size: number): Promise<Buffer> {
  const png = await makeImage("png");
  return Buffer.concat([png, Buffer.alloc(size - png.length)]);
}

function expectDecodableBlurHash(hash: unknown): void {
  expect(typeof hash).toBe("string");
  expect(isBlurhashValid(hash as string)).toEqual({ result: true });
  expect(decode(hash as string, 32, 24)).toHaveLength(32 * 24 * 4);
}

describe.each(MEDIA_BACKENDS)("media through GraphQL on %s storage", (kind) => {
  let backend: MediaBackend;
  let ws: TestWorkspace;
  beforeAll(async () => {
    backend = await startMediaBackend(kind);
    ws = await backend.app.workspace();
  });
  afterAll(async () => backend?.close());

  const app = () => backend.app;
  const run = (query: string, variables: Body = {}, key = ws.privateKey) =>
    app().graphql(key, query, variables);
  const urlPattern = (workspaceId: string, extension: string) =>
    expect.stringMatching(
      new RegExp(`^${escapeRegExp(backend.publicBase)}/${workspaceId}/[0-9a-f]{32}\\.${extension}$`),
    );
  const recordCount = () => app().db.prisma.media.count();

  /** POST /graphql as a multipart request: operations, map, and the file as part "0". */
  async function upload(
    file: { bytes: Uint8Array; filename: string; type?: string },
    args: { name?: string; alt?: string } = {},
    key: string | null = ws.privateKey,
  ) {
    const form = new FormData();
    form.append("operations", JSON.stringify({ query: UPLOAD, variables: { file: null, ...args } }));
    form.append("map", JSON.stringify({ 0: ["variables.file"] }));
    form.append(
      "0",
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "application/octet-stream" }),
      file.filename,
    );
    const response = await fetch(`${app().url}/graphql`, {
      method: "POST",
      headers: key ? { authorization: key } : {},
      body: form,
    });
    return { status: response.status, body: await response.json() };
  }
  async function uploaded(
    file: { bytes: Uint8Array; filename: string; type?: string },
    args: { name?: string; alt?: string } = {},
    key?: string,
  ) {
    const res = await upload(file, args, key);
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    expect(res.status).toBe(200);
    return res.body.data.uploadMedia as Media;
  }
  async function expectNothingStored(act: () => Promise<void>): Promise<void> {
    const [keysBefore, recordsBefore] = [await backend.storedKeys(), await recordCount()];
    await act();
    expect(await backend.storedKeys()).toEqual(keysBefore);
    expect(await recordCount()).toBe(recordsBefore);
  }

  describe("uploadMedia", () => {
    it("stores a PNG: every field, the file readable at its absolute URL with long cache headers", async () => {
      const png = await makeImage("png", 64, 48);
      const res = await upload(
        { bytes: png, filename: "pixels.png", type: "image/png" },
        { alt: "A gradient" },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          uploadMedia: {
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
            type: "IMAGE",
            createdAt: isoDate,
            updatedAt: isoDate,
          },
        },
      });
      const media = res.body.data.uploadMedia as Media;
      expectDecodableBlurHash(media.blurHash);
      expect(await backend.storedKeys()).toContain(storageKeyOf(backend, media.url));
      const file = await fetch(backend.fetchable(media.url));
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
      expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(Buffer.from(await file.arrayBuffer())).toEqual(png);
      // The same record is readable with a public key.
      expect((await run(GET, { id: media.id }, ws.publicKey)).data).toEqual({ media });
    });

    it("stores a JPEG under the given name", async () => {
      const jpeg = await makeImage("jpeg", 90, 40);
      const media = await uploaded(
        { bytes: jpeg, filename: "IMG_0002.jpg", type: "image/jpeg" },
        { name: "Wide sunset" },
      );
      expect(media).toEqual({
        id: expect.any(String),
        name: "Wide sunset",
        url: urlPattern(ws.id, "jpg"),
        alt: null,
        size: jpeg.length,
        mimeType: "image/jpeg",
        width: 90,
        height: 40,
        duration: null,
        blurHash: expect.any(String),
        type: "IMAGE",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      expectDecodableBlurHash(media.blurHash);
    });

    it("stores a WAV with its duration in milliseconds", async () => {
      const wav = makeWav(0.75);
      const media = await uploaded({ bytes: wav, filename: "blip.wav", type: "audio/x-wav" });
      expect(media).toEqual({
        id: expect.any(String),
        name: "blip.wav",
        url: urlPattern(ws.id, "wav"),
        alt: null,
        size: wav.length,
        mimeType: "audio/wav",
        width: null,
        height: null,
        duration: 750,
        blurHash: null,
        type: "AUDIO",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
    });

    it("stores a PDF as a document", async () => {
      const pdf = makePdf();
      const media = await uploaded({ bytes: pdf, filename: "terms.pdf" });
      expect(media).toEqual({
        id: expect.any(String),
        name: "terms.pdf",
        url: urlPattern(ws.id, "pdf"),
        alt: null,
        size: pdf.length,
        mimeType: "application/pdf",
        width: null,
        height: null,
        duration: null,
        blurHash: null,
        type: "DOCUMENT",
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      expect(Buffer.from(await (await fetch(backend.fetchable(media.url))).arrayBuffer())).toEqual(pdf);
    });

    it("refuses an executable named .png: BAD_USER_INPUT (400), storing nothing", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: makeElf(), filename: "cat.png", type: "image/png" });
        expect(res.status).toBe(400);
        const message =
          "Files of type application/x-elf are not accepted; upload an image, video, audio file, PDF or office document";
        expect(res.body).toEqual({
          data: null,
          errors: [
            {
              message,
              locations: UPLOAD_LOCATION,
              path: ["uploadMedia"],
              extensions: { code: "BAD_USER_INPUT", details: [{ field: "file", message }] },
            },
          ],
        });
      });
    });

    it.each([
      ["a PNG cut to 20 bytes", "image/png", "png"],
      ["a JPEG cut in half", "image/jpeg", "jpeg"],
    ] as const)("refuses %s: BAD_USER_INPUT (400), storing nothing", async (_label, mime, format) => {
      const image = await makeImage(format);
      const bytes = format === "png" ? image.subarray(0, 20) : image.subarray(0, image.length / 2);
      await expectNothingStored(async () => {
        const res = await upload({ bytes, filename: "cut.img" });
        expect(res.status).toBe(400);
        const message = `Files of type ${mime} are not accepted when they cannot be decoded (the file is truncated or corrupt)`;
        expect(res.body.errors).toEqual([
          {
            message,
            locations: UPLOAD_LOCATION,
            path: ["uploadMedia"],
            extensions: { code: "BAD_USER_INPUT", details: [{ field: "file", message }] },
          },
        ]);
      });
    });

    it("accepts a file of exactly 5 MiB", async () => {
      const media = await uploaded({ bytes: await pngOfSize(MAX_BYTES), filename: "limit.png" });
      expect(media).toMatchObject({ size: MAX_BYTES, mimeType: "image/png", width: 64, height: 48 });
    });

    it.each([
      ["one byte more", MAX_BYTES + 1],
      ["far more", 8 * 1024 * 1024],
    ])("refuses %s than 5 MiB: PAYLOAD_TOO_LARGE (413), storing nothing", async (_label, size) => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: await pngOfSize(size), filename: "too-big.png" });
        expect(res.status).toBe(413);
        expect(res.body).toEqual({
          errors: [
            {
              message: "The file is larger than the limit of 5 MiB",
              extensions: { code: "PAYLOAD_TOO_LARGE" },
            },
          ],
        });
      });
    });

    it("needs a private key: FORBIDDEN (403), storing nothing", async () => {
      await expectNothingStored(async () => {
        const res = await upload({ bytes: await makeImage("png"), filename: "public.png" }, {}, ws.publicKey);
        expect(res.status).toBe(403);
        expect(res.body.errors).toEqual([
          {
            message: FORBIDDEN_MESSAGE,
            locations: UPLOAD_LOCATION,
            path: ["uploadMedia"],
            extensions: { code: "FORBIDDEN", requiredScope: "media:write" },
          },
        ]);
      });
    });

    it("needs a key: 401", async () => {
      const res = await upload({ bytes: await makeImage("png"), filename: "anonymous.png" }, {}, null);
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions).toEqual({ code: "UNAUTHENTICATED", http: { status: 401 } });
    });

    it("leaves neither file nor record when writing the record fails", async () => {
      expectServerErrors();
      const create = vi
        .spyOn(app().db.prisma, "$transaction")
        .mockRejectedValueOnce(new Error("connection lost"));
      try {
        await expectNothingStored(async () => {
          const res = await upload({ bytes: await makeImage("png"), filename: "unlucky.png" });
          expect(res.body.errors).toEqual([
            {
              message: "Unexpected error.",
              locations: UPLOAD_LOCATION,
              path: ["uploadMedia"],
              extensions: { code: "INTERNAL_SERVER_ERROR" },
            },
          ]);
        });
        expect(create).toHaveBeenCalledTimes(1);
      } finally {
        create.mockRestore();
      }
    });
  });

  describe("media(id)", () => {
    it("NOT_FOUND (404) for an unknown id or another workspace's media", async () => {
      const missing = await run(GET, { id: "no-such-media" });
      expect(missing.data).toBeNull();
      expect(errorsOf(missing)).toEqual(notFound("no-such-media"));
      const media = await uploaded({ bytes: await makeImage("png"), filename: "mine.png" });
      const other = await app().workspace("Other");
      expect(errorsOf(await run(GET, { id: media.id }, other.privateKey))).toEqual(notFound(media.id));
    });
  });

  describe("mediaList", () => {
    let own: TestWorkspace;
    let byName: Record<string, Media>;
    const list = async (variables: Body = {}, key?: string) => {
      const result = await run(LIST, variables, key ?? own.privateKey);
      expect(errorsOf(result)).toBeUndefined();
      return result.data.mediaList as { items: Media[]; pagination: Body };
    };
    const names = async (variables: Body = {}) => (await list(variables)).items.map((m) => m.name);

    beforeAll(async () => {
      own = await app().workspace("Library");
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
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });

    it("lists the workspace's media newest first, with pagination, for any key", async () => {
      expect(await list({}, own.publicKey)).toEqual({
        items: ["Price list", "Theme song", "Logo", "sunrise", "Sunset beach"].map((name) => byName[name]),
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

    it("order ASC lists oldest first", async () => {
      expect(await names({ order: "ASC" })).toEqual([
        "Sunset beach",
        "sunrise",
        "Logo",
        "Theme song",
        "Price list",
      ]);
    });

    it("type and query (part of the name, case-insensitive) filter, also together", async () => {
      expect(await names({ type: "IMAGE" })).toEqual(["Logo", "sunrise", "Sunset beach"]);
      expect(await names({ type: "AUDIO" })).toEqual(["Theme song"]);
      expect(await names({ type: "DOCUMENT" })).toEqual(["Price list"]);
      expect(await list({ type: "VIDEO" })).toEqual({
        items: [],
        pagination: {
          limit: 10,
          currentPage: 1,
          nextPage: null,
          previousPage: null,
          totalPages: 0,
          totalItems: 0,
        },
      });
      expect(await names({ query: "SUN" })).toEqual(["sunrise", "Sunset beach"]);
      expect(await names({ query: "o", type: "IMAGE", order: "ASC" })).toEqual(["Logo"]);
    });

    it("pages with limit and page; a page past the last is PAGE_OUT_OF_RANGE", async () => {
      const second = await list({ limit: 2, page: 2 });
      expect(second.items.map((m) => m.name)).toEqual(["Logo", "sunrise"]);
      expect(second.pagination).toEqual({
        limit: 2,
        currentPage: 2,
        nextPage: 3,
        previousPage: 1,
        totalPages: 3,
        totalItems: 5,
      });
      const past = await run(LIST, { limit: 2, page: 4 }, own.privateKey);
      expect(errorsOf(past)).toEqual([
        {
          message: "Page 4 does not exist; there are 3 pages",
          extensions: { code: "PAGE_OUT_OF_RANGE", http: { status: 400 }, requestedPage: 4, totalPages: 3 },
        },
      ]);
    });

    it("shows only the caller's workspace", async () => {
      const other = await app().workspace("Elsewhere");
      expect((await list({}, other.publicKey)).items).toEqual([]);
    });
  });

  describe("updateMedia", () => {
    let media: Media;
    beforeAll(async () => {
      media = await uploaded({ bytes: await makeImage("png"), filename: "editable.png" }, { alt: "Before" });
    });

    it("changes the name; everything else stays, updatedAt moves", async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const result = await run(UPDATE, { id: media.id, name: "Renamed" });
      expect(result.data).toEqual({ updateMedia: { ...media, name: "Renamed", updatedAt: isoDate } });
      expect(new Date(result.data.updateMedia.updatedAt).getTime()).toBeGreaterThan(
        new Date(media.updatedAt).getTime(),
      );
    });

    it("changes the alt text, and null clears it", async () => {
      expect((await run(UPDATE, { id: media.id, alt: "After" })).data?.updateMedia).toMatchObject({
        name: "Renamed",
        alt: "After",
      });
      expect((await run(UPDATE, { id: media.id, alt: null })).data?.updateMedia).toMatchObject({
        name: "Renamed",
        alt: null,
      });
    });

    it("name needs at least 1 character and cannot be null", async () => {
      const invalid = (message: string) => [
        {
          message: "Invalid media update",
          extensions: {
            code: "BAD_USER_INPUT",
            http: { status: 400 },
            details: [{ field: "name", message }],
          },
        },
      ];
      expect(errorsOf(await run(UPDATE, { id: media.id, name: "" }))).toEqual(
        invalid("Must be at least 1 character"),
      );
      expect(errorsOf(await run(UPDATE, { id: media.id, name: null }))).toEqual(invalid("Cannot be null"));
    });

    it("needs a private key; NOT_FOUND for an unknown id or another workspace's media", async () => {
      expect(errorsOf(await run(UPDATE, { id: media.id, name: "X" }, ws.publicKey))).toEqual([
        {
          message: FORBIDDEN_MESSAGE,
          extensions: { code: "FORBIDDEN", http: { status: 403 }, requiredScope: "media:write" },
        },
      ]);
      expect(errorsOf(await run(UPDATE, { id: "no-such-media", name: "X" }))).toEqual(
        notFound("no-such-media"),
      );
      const other = await app().workspace("Other");
      expect(errorsOf(await run(UPDATE, { id: media.id, name: "X" }, other.privateKey))).toEqual(
        notFound(media.id),
      );
      expect((await run(GET, { id: media.id })).data?.media.name).toBe("Renamed");
    });
  });

  describe("deleteMedia", () => {
    it("removes the record and the stored file", async () => {
      const media = await uploaded({ bytes: await makeImage("jpeg"), filename: "doomed.jpg" });
      const key = storageKeyOf(backend, media.url);
      expect(await backend.storedKeys()).toContain(key);
      expect((await run(DELETE, { id: media.id })).data).toEqual({ deleteMedia: { id: media.id } });
      expect(errorsOf(await run(GET, { id: media.id }))).toEqual(notFound(media.id));
      expect(await backend.storedKeys()).not.toContain(key);
      expect((await fetch(backend.fetchable(media.url))).status).toBe(404);
      expect(errorsOf(await run(DELETE, { id: media.id }))).toEqual(notFound(media.id));
    });

    it("needs a private key, and cannot reach another workspace's media", async () => {
      const media = await uploaded({ bytes: makePdf(), filename: "kept.pdf" });
      expect(errorsOf(await run(DELETE, { id: media.id }, ws.publicKey))).toEqual([
        {
          message: FORBIDDEN_MESSAGE,
          extensions: { code: "FORBIDDEN", http: { status: 403 }, requiredScope: "media:write" },
        },
      ]);
      const other = await app().workspace("Other");
      expect(errorsOf(await run(DELETE, { id: media.id }, other.privateKey))).toEqual(notFound(media.id));
      expect((await fetch(backend.fetchable(media.url))).status).toBe(200);
    });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
