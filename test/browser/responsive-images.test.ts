// A page with `<img srcset sizes>` over the service's transform URLs (as Media.srcSet hands them out), in
// headless Chromium at device pixel ratios 1 and 2: the browser picks the variant the ratio calls for,
// asks for it with its own Accept header, and decodes the format the service chose from it.

import type { Browser } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openGuardedPage } from "../helpers/browser.ts";
import { type MediaBackend, startMediaBackend } from "../helpers/media-backends.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import { makeRotatedJpeg } from "../media/helpers/make-images.ts";

let backend: MediaBackend;
let ws: TestWorkspace;
let browser: Browser;
let srcSet: string;
beforeAll(async () => {
  [backend, browser] = await Promise.all([startMediaBackend("local"), launchBrowser()]);
  ws = await backend.app.workspace("Images");
  // A 1200×900 photo (the rotated JPEG of the other tests, scaled up) so every candidate below is real.
  const photo = await sharp(await makeRotatedJpeg())
    .rotate()
    .resize(900, 1200)
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(photo)]), "photo.jpg");
  const upload = await fetch(`${backend.app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: ws.privateKey },
    body: form,
  });
  const { media } = (await upload.json()) as { media: { id: string } };
  const result = await backend.app.graphql(
    ws.publicKey,
    "query ($id: ID!) { media(id: $id) { srcSet(widths: [256, 384, 640, 750, 828], format: AUTO) } }",
    { id: media.id },
  );
  // The URLs name the configured public URL; the browser reaches the same paths on the test server.
  srcSet = (result.data.media.srcSet as string).replaceAll(
    backend.app.config.publicUrl ?? "",
    backend.app.url,
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await backend?.close();
});

describe("<img srcset sizes> over transform URLs in Chromium", () => {
  // sizes=320px: at ratio 1 the 384-wide candidate is the smallest that covers 320 pixels; at ratio 2 the
  // 640-wide one covers 640 exactly.
  it.each([
    [1, 384],
    [2, 640],
  ])("at device pixel ratio %i loads the %i-pixel-wide variant, as AVIF", async (ratio, expectedWidth) => {
    const { page, outside, errors } = await openGuardedPage(browser, backend.app.url, {
      deviceScaleFactor: ratio,
      viewport: { width: 800, height: 600 },
    });
    const images: { url: string; status: number; contentType: string; body: Buffer }[] = [];
    page.on("response", async (response) => {
      if (!new URL(response.url()).pathname.startsWith("/media/")) return;
      images.push({
        url: response.url(),
        status: response.status(),
        contentType: response.headers()["content-type"] ?? "",
        body: await response.body(),
      });
    });
    // A page of the service's origin, then the markup a frontend would render.
    await page.goto(`${backend.app.url}/status`);
    await page.setContent(`<img id="photo" alt="" srcset="${srcSet}" sizes="320px">`);
    await page.waitForFunction(() => {
      const img = document.getElementById("photo") as HTMLImageElement | null;
      return img?.complete && img.naturalWidth > 0;
    });
    const currentSrc = await page.$eval("#photo", (img) => (img as HTMLImageElement).currentSrc);
    expect(new URL(currentSrc).searchParams.get("w")).toBe(String(expectedWidth));
    await expect.poll(() => images.length).toBe(1);
    const [image] = images;
    expect(image?.url).toBe(currentSrc);
    expect(image?.status).toBe(200);
    // Chromium's Accept names AVIF, so fm=auto answers AVIF, which it decoded (naturalWidth above).
    expect(image?.contentType).toBe("image/avif");
    const metadata = await sharp(image?.body).metadata();
    expect([metadata.compression, metadata.width]).toEqual(["av1", expectedWidth]);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});
