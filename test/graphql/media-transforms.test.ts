// Media.url(transform:) and Media.srcSet(widths:, format:): URLs of transformed images, built from the
// same configured lists the transform route checks, and answered by it.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaBackend, startMediaBackend, storageKeyOf } from "../helpers/media-backends.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import { makePdf } from "../media/helpers/make-files.ts";
import { makeRotatedJpeg } from "../media/helpers/make-images.ts";
import { uploadMedia } from "../media/helpers/upload-media.ts";

describe("Media transform URLs in GraphQL", () => {
  let backend: MediaBackend;
  let ws: TestWorkspace;
  beforeAll(async () => {
    backend = await startMediaBackend("local");
    ws = await backend.app.workspace();
  });
  afterAll(async () => backend?.close());

  const uploaded = (bytes: Uint8Array, filename: string) =>
    uploadMedia(backend.app.url, ws.privateKey, bytes, filename);
  const QUERY = `query ($id: ID!) {
    media(id: $id) {
      url
      resized: url(transform: { width: 640, format: WEBP, quality: 80 })
      cropped: url(transform: { width: 96, height: 96, fit: COVER })
      srcSet(widths: [64, 128], format: AUTO)
      allWidths: srcSet
    }
  }`;

  it("builds transform URLs on the service and a srcset up to the image's own width", async () => {
    const media = await uploaded(await makeRotatedJpeg(), "photo.jpg");
    const key = storageKeyOf(backend, media.url);
    const result = await backend.app.graphql(ws.publicKey, QUERY, { id: media.id });
    expect(result.errors).toBeUndefined();
    const base = `${backend.app.config.publicUrl}/media/${key}`;
    expect(result.data.media).toEqual({
      url: media.url,
      resized: `${base}?w=640&fm=webp&q=80`,
      cropped: `${base}?w=96&h=96&fit=cover`,
      srcSet: `${base}?w=64&fm=auto 64w, ${base}?w=128&fm=auto 128w`,
      // The photo is 300 pixels wide as displayed: no candidate above its width.
      allWidths: [16, 32, 48, 64, 96, 128, 256].map((width) => `${base}?w=${width} ${width}w`).join(", "),
    });

    const [firstCandidate = ""] = (result.data.media.srcSet as string).split(" ");
    const res = await fetch(
      `${backend.app.url}${new URL(firstCandidate).pathname}${new URL(firstCandidate).search}`,
      {
        headers: { accept: "image/webp,*/*" },
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(64);
  });

  it("keeps the URL of a file that is not an image and gives it no srcset", async () => {
    const media = await uploaded(makePdf(), "paper.pdf");
    const result = await backend.app.graphql(ws.publicKey, QUERY, { id: media.id });
    expect(result.errors).toBeUndefined();
    expect(result.data.media).toEqual({
      url: media.url,
      resized: media.url,
      cropped: media.url,
      srcSet: null,
      allWidths: null,
    });
  });

  it("refuses widths and qualities outside the configured lists, naming the argument", async () => {
    const media = await uploaded(await makeRotatedJpeg(), "refused.jpg");
    const result = await backend.app.graphql(
      ws.publicKey,
      `query ($id: ID!) { media(id: $id) { url(transform: { width: 500, quality: 42 }) } }`,
      { id: media.id },
    );
    expect(result.errors?.map((error) => error.extensions)).toEqual([
      {
        code: "BAD_USER_INPUT",
        http: { status: 400 },
        details: [
          {
            field: "transform.width",
            message:
              "must be one of the configured widths: 16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840",
          },
          {
            field: "transform.quality",
            message: "must be one of the configured qualities: 50, 60, 75, 80, 90, 100",
          },
        ],
      },
    ]);
    const widths = await backend.app.graphql(
      ws.publicKey,
      `query ($id: ID!) { media(id: $id) { srcSet(widths: [64, 65]) } }`,
      { id: media.id },
    );
    expect(widths.errors?.[0]?.extensions?.details).toEqual([
      {
        field: "widths.1",
        message:
          "must be one of the configured widths: 16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840",
      },
    ]);
  });

  it("transforms a post's cover when it is an image this service stores, and leaves other covers alone", async () => {
    const media = await uploaded(await makeRotatedJpeg(), "cover.jpg");
    const key = storageKeyOf(backend, media.url);
    const f = restFixtures(backend.app, ws.privateKey);
    const category = await f.category("covers");
    await f.post({ slug: "stored-cover", categoryId: category.id, coverImage: media.url });
    await f.post({
      slug: "elsewhere-cover",
      categoryId: category.id,
      coverImage: "https://cdn.example.com/a.jpg",
    });
    const query = `query ($slug: String!) {
      post(identifier: $slug) {
        coverImage
        small: coverImage(transform: { width: 256, format: AUTO })
        coverImageSrcSet(widths: [128, 256], format: WEBP)
      }
    }`;
    const stored = await backend.app.graphql(ws.publicKey, query, { slug: "stored-cover" });
    expect(stored.errors).toBeUndefined();
    const base = `${backend.app.config.publicUrl}/media/${key}`;
    expect(stored.data.post).toEqual({
      coverImage: media.url,
      small: `${base}?w=256&fm=auto`,
      coverImageSrcSet: `${base}?w=128&fm=webp 128w, ${base}?w=256&fm=webp 256w`,
    });
    const elsewhere = await backend.app.graphql(ws.publicKey, query, { slug: "elsewhere-cover" });
    expect(elsewhere.data.post).toEqual({
      coverImage: "https://cdn.example.com/a.jpg",
      small: "https://cdn.example.com/a.jpg",
      coverImageSrcSet: null,
    });
  });
});
