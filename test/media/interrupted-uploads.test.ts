// A local put writes `<key>.<random>.partial` and renames it; a process killed (kill -9) between the two
// leaves the .partial file behind. Opening the storage removes them and keeps every complete object.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { openMediaStorage } from "../../src/media/create-storage.ts";
import { isSelfServed } from "../../src/media/storage.ts";
import { makeImage } from "./helpers/make-files.ts";
import { listFiles, makeTempDir } from "./helpers/temp-dir.ts";

const KEEP = "ws1/0123456789abcdef0123456789abcdef.png";
const KEEP_OTHER = "ws2/fedcba9876543210fedcba9876543210.pdf";
const LEFTOVERS = [
  "ws1/00000000000000000000000000000001.png.a1b2c3d4e5f6.partial",
  "ws2/00000000000000000000000000000002.jpg.0f0f0f0f0f0f.partial",
];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeEach(async () => {
  temp = await makeTempDir("interrupted-uploads");
});
afterEach(async () => temp.remove());

async function writeUnder(mediaDir: string, key: string, bytes: Uint8Array): Promise<void> {
  const file = path.join(mediaDir, ...key.split("/"));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

describe("openMediaStorage on the local disk", () => {
  it("removes the .partial files interrupted uploads left, and keeps every complete object", async () => {
    const config = loadConfig({ DATA_DIR: temp.dir, LOG_LEVEL: "silent" });
    const mediaDir = path.join(temp.dir, "media");
    const png = await makeImage("png");
    await writeUnder(mediaDir, KEEP, png);
    await writeUnder(mediaDir, KEEP_OTHER, Buffer.from("%PDF-1.4\n"));
    for (const leftover of LEFTOVERS) await writeUnder(mediaDir, leftover, png.subarray(0, 100));
    expect(await listFiles(mediaDir)).toHaveLength(4);

    const storage = await openMediaStorage(config, silentLogger);

    expect(await listFiles(mediaDir)).toEqual([KEEP, KEEP_OTHER].map((key) => key.split("/").join(path.sep)));
    if (!isSelfServed(storage)) throw new Error("expected the local, self-served storage");
    const kept = await storage.read(KEEP);
    expect(kept?.size).toBe(png.length);
    await kept?.close();
  });

  it("opens a media folder that does not exist yet", async () => {
    const config = loadConfig({ DATA_DIR: temp.dir, LOG_LEVEL: "silent" });
    const storage = await openMediaStorage(config, silentLogger);
    expect(isSelfServed(storage)).toBe(true);
  });
});
