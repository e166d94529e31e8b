// Two real instances sharing a database and a media folder: a media item deleted through one while the
// other is computing one of its variants leaves no variant behind, and neither instance serves it.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN, adminWorkspace, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";
import { makeNoiseJpeg } from "./helpers/make-images.ts";
import { uploadMedia } from "./helpers/upload-media.ts";

describe.skipIf(storageMode !== "postgres")("image variants across instances", () => {
  const group = instanceGroup("variants");
  afterAll(() => group.stop());

  it("removes a variant stored after its original was deleted on another instance, and neither serves it", async () => {
    // One after the other: the first migrates the schema.
    const a = await group.start();
    const b = await group.start();
    const ws = await adminWorkspace(a, "Variants");
    // Noise compresses badly: its AVIF takes long enough for the delete to land while it is computed.
    const media = await uploadMedia(a.url, ws.privateKey, await makeNoiseJpeg(1600, 1200), "noise.jpg");
    const key = new URL(media.url).pathname.replace(/^\/media\//, "");
    const variantUrl = (instance: { url: string }) => `${instance.url}/media/${key}?w=1080&fm=avif`;

    const inFlight = fetch(variantUrl(a)).then((res) => ({ status: res.status, at: performance.now() }));
    // The transform holds a slot on `a` (its own gauge says so); then `b` deletes the original.
    await vi.waitFor(
      async () => {
        const metrics = await fetch(`${a.url}/metrics`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        }).then((res) => res.text());
        expect(metrics).toMatch(/^media_transforms\{state="active"\} 1$/m);
      },
      { timeout: 30_000, interval: 25 },
    );

    const deleted = await fetch(`${b.url}/v1/media/${media.id}`, {
      method: "DELETE",
      headers: { authorization: ws.privateKey },
    });
    expect(deleted.status).toBe(200);
    const deletedAt = performance.now();

    const answer = await inFlight;
    // It was still being computed when the delete answered.
    expect(answer.at).toBeGreaterThan(deletedAt);
    expect(answer.status).toBe(404);
    for (const instance of [a, b]) expect((await fetch(variantUrl(instance))).status).toBe(404);
    const variantsDir = path.join(group.dataDir, "media", key.replace(/\.jpg$/, ""));
    const left = await readdir(variantsDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    expect(left).toEqual([]);
  }, 300_000);
});
