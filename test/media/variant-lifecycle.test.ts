// What happens to stored variants over their life, on the database the suite runs on (embedded or
// PostgreSQL): one stored variant for every request that makes the same image, a bound on the variants
// of one original (least recently used removed), their bytes in /metrics, a budget of new variants per
// client address, and no variant served once its original is deleted — even one computed meanwhile.
import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type MediaBackend, startMediaBackend, storageKeyOf } from "../helpers/media-backends.ts";
import type { TestWorkspace } from "../helpers/test-app.ts";
import { makeAlphaPng, makeRotatedJpeg } from "./helpers/make-images.ts";
import { uploadMedia } from "./helpers/upload-media.ts";

const METRICS_TOKEN = "metrics-token-for-variant-tests";

interface Media {
  id: string;
  url: string;
}

describe("stored image variants", () => {
  let backend: MediaBackend;
  let ws: TestWorkspace;
  beforeAll(async () => {
    backend = await startMediaBackend("local", {
      MEDIA_TRANSFORM_MAX_VARIANTS: "3",
      MEDIA_TRANSFORM_RATE_LIMIT: "4",
      TRUST_PROXY: "loopback",
      METRICS_TOKEN,
    });
    ws = await backend.app.workspace();
  }, 120_000);
  afterAll(async () => backend?.close());

  // Each request comes from its own client address unless a test says otherwise, so only the test of
  // the budget spends one.
  let addresses = 0;
  async function get(
    url: string,
    address = `10.0.${Math.floor(addresses / 250)}.${(addresses++ % 250) + 1}`,
  ) {
    const response = await fetch(url, { headers: { "x-forwarded-for": address } });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { status: response.status, headers: response.headers, bytes };
  }
  const uploaded = (bytes: Uint8Array, filename: string) =>
    uploadMedia(backend.app.url, ws.privateKey, bytes, filename);
  const keyOf = (media: Media) => storageKeyOf(backend, media.url);
  const transformUrl = (media: Media, query: string) => `${backend.app.url}/media/${keyOf(media)}?${query}`;
  /** The variants of `media` in the store, by their name under the original's prefix. */
  async function storedVariants(media: Media): Promise<string[]> {
    const prefix = `${keyOf(media).replace(/\.[a-z]+$/, "")}/`;
    return (await backend.storedKeys())
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length));
  }
  /** The variants of `media` the database records, by name. */
  async function recordedVariants(media: Media): Promise<string[]> {
    const rows = await backend.app.db.sql.query<{ key: string }>(
      `SELECT key FROM "MediaVariant" WHERE "mediaId" = $1 ORDER BY key`,
      [media.id],
    );
    return rows.map((row) => row.key.slice(row.key.lastIndexOf("/") + 1));
  }
  const remove = (media: Media) =>
    backend.app.request("DELETE", `/v1/media/${media.id}`, { key: ws.privateKey });

  describe("an original deleted", () => {
    it("while its variant is computed: the variant is removed once stored, and the request answers 404", async () => {
      const media = await uploaded(await makeAlphaPng(), "deleted-meanwhile.png");
      const storage = backend.app.mediaStorage;
      const put = storage.put.bind(storage);
      // The delete lands between the transform and the write of its result.
      const spy = vi.spyOn(storage, "put").mockImplementation(async (key, bytes, contentType, options) => {
        if (key.startsWith(keyOf(media).replace(/\.png$/, "/")))
          expect((await remove(media)).status).toBe(200);
        return put(key, bytes, contentType, options);
      });
      try {
        const inFlight = await get(transformUrl(media, "w=64&fm=webp"));
        expect(spy).toHaveBeenCalledTimes(1);
        expect(inFlight.status).toBe(404);
      } finally {
        spy.mockRestore();
      }
      expect(await storedVariants(media)).toEqual([]);
      expect((await get(transformUrl(media, "w=64&fm=webp"))).status).toBe(404);
    });

    it("never has its variants served, even one left in the store", async () => {
      const media = await uploaded(await makeAlphaPng(), "left-behind.png");
      const first = await get(transformUrl(media, "w=64&fm=webp"));
      expect(first.status).toBe(200);
      expect(await storedVariants(media)).toEqual(["w64_inside_q75.webp"]);
      expect((await remove(media)).status).toBe(200);
      // As a removal that failed would leave it.
      const key = `${keyOf(media).replace(/\.png$/, "")}/w64_inside_q75.webp`;
      await backend.app.mediaStorage.put(key, first.bytes, "image/webp");

      const res = await get(transformUrl(media, "w=64&fm=webp"));
      expect(res.status).toBe(404);
      expect(JSON.parse(res.bytes.toString("utf8"))).toEqual({
        error: "Not found",
        message: "No media file exists at this URL",
      });
    });
  });

  describe("normalised parameters", () => {
    it("stores one variant for every request that makes the same image", async () => {
      // 400×300 PNG: PNG has no quality, and a box the image would grow into is the image's own size.
      const media = await uploaded(await makeAlphaPng(), "normalised.png");
      const etags = new Map<string, string[]>();
      const groups = [
        ["w=64", "w=64&q=50", "w=64&q=100", "w=64&h=3840"],
        ["q=50", "w=640", "w=3840&q=90", "w=2048&h=1920", "h=2048"],
        ["w=3840&h=3840&fit=contain", "w=1920&h=1920&fit=contain&q=60"],
      ];
      for (const [i, group] of groups.entries())
        for (const query of group) {
          const res = await get(transformUrl(media, query));
          expect(res.status, query).toBe(200);
          etags.set(String(i), [...(etags.get(String(i)) ?? []), res.headers.get("etag") ?? ""]);
        }
      for (const tags of etags.values()) expect(new Set(tags).size).toBe(1);
      expect(await storedVariants(media)).toEqual(["inside.png", "w400_h400_contain.png", "w64_inside.png"]);
    });
  });

  describe("the bound on variants per original", () => {
    it("keeps MEDIA_TRANSFORM_MAX_VARIANTS of them, removing the least recently used", async () => {
      const media = await uploaded(await makeRotatedJpeg(), "bounded.jpg");
      for (const width of [16, 32, 48])
        expect((await get(transformUrl(media, `w=${width}`))).status).toBe(200);
      expect(await storedVariants(media)).toEqual([
        "w16_inside_q75.jpg",
        "w32_inside_q75.jpg",
        "w48_inside_q75.jpg",
      ]);
      // Used an hour apart, w=16 longest ago; then w=16 is used again, so w=32 is now the least recent.
      for (const [width, hours] of [
        [16, 3],
        [32, 2],
        [48, 1],
      ])
        await backend.app.db.sql.query(
          `UPDATE "MediaVariant" SET "lastUsedAt" = "lastUsedAt" - make_interval(hours => $2) WHERE key LIKE $1`,
          [`%/w${width}_inside_q75.jpg`, hours],
        );
      expect((await get(transformUrl(media, "w=16"))).status).toBe(200);

      expect((await get(transformUrl(media, "w=64"))).status).toBe(200);
      const kept = ["w16_inside_q75.jpg", "w48_inside_q75.jpg", "w64_inside_q75.jpg"];
      expect(await storedVariants(media)).toEqual(kept);
      expect(await recordedVariants(media)).toEqual(kept);
      // The removed one is computed again when asked for (and another goes).
      const again = await get(transformUrl(media, "w=32"));
      expect(again.status).toBe(200);
      expect(await storedVariants(media)).toHaveLength(3);
    });

    it("reports the variants stored and their bytes in /metrics", async () => {
      const media = await uploaded(await makeAlphaPng(), "measured.png");
      for (const query of ["w=16", "w=32&fm=webp"])
        expect((await get(transformUrl(media, query))).status).toBe(200);
      const storage = backend.app.config.media.storage;
      if (storage.kind !== "local") throw new Error("expected local media storage");
      // Every variant of a media item in the store, whichever test made it (another test leaves one of a
      // deleted item behind on purpose: that one is no variant any more).
      const originals = await backend.app.db.sql.query<{ storageKey: string }>(
        `SELECT "storageKey" FROM "Media"`,
      );
      const prefixes = originals.map(({ storageKey }) => `${storageKey.replace(/\.[a-z]+$/, "")}/`);
      const variants = (await backend.storedKeys()).filter((key) =>
        prefixes.some((prefix) => key.startsWith(prefix)),
      );
      let bytes = 0;
      for (const key of variants) bytes += (await stat(path.join(storage.dir, key))).size;

      const res = await fetch(`${backend.app.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const text = await res.text();
      expect(text).toMatch(new RegExp(`^media_variants ${variants.length}$`, "m"));
      expect(text).toMatch(new RegExp(`^media_variant_bytes ${bytes}$`, "m"));
    });
  });

  describe("the budget of new variants per client address", () => {
    it("computes MEDIA_TRANSFORM_RATE_LIMIT new variants per window for one address, then answers 429", async () => {
      const media = await uploaded(await makeRotatedJpeg(), "budget.jpg");
      const address = "198.51.100.7";
      for (const width of [16, 32, 48, 64])
        expect((await get(transformUrl(media, `w=${width}&fm=webp`), address)).status).toBe(200);
      const refused = await get(transformUrl(media, "w=96&fm=webp"), address);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("x-ratelimit-limit")).toBe("4");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(JSON.parse(refused.bytes.toString("utf8"))).toEqual({
        error: "Too many requests",
        details: { message: expect.stringMatching(/^Rate limit of 4 requests exceeded/), statusCode: 429 },
      });
      // A stored variant costs nothing; another address has its own budget.
      expect((await get(transformUrl(media, "w=64&fm=webp"), address)).status).toBe(200);
      expect((await get(transformUrl(media, "w=96&fm=webp"), "198.51.100.8")).status).toBe(200);
    });
  });
});
