// Requests whose boxes boundedBox makes equal must make the same image, or sharing one stored variant
// between them would serve the wrong one. Checked by resizing with sharp both as asked and as bounded,
// wherever sharp itself does not enlarge (cover and contain beyond the image are the bounded box's
// own promise, tested through the route in image-transforms.test.ts).
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { boundedBox } from "../../src/media/transform-box.ts";
import type { ResolvedTransform } from "../../src/media/transform-params.ts";
import { makeNoise } from "./helpers/make-images.ts";

type Box = Pick<ResolvedTransform, "width" | "height" | "fit">;

const noise = (width: number, height: number) => makeNoise(width, height, 40).png().toBuffer();

async function resized(source: Buffer, box: Box) {
  const { data, info } = await sharp(source)
    .resize({ width: box.width, height: box.height, fit: box.fit, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

const BOXES: Box[] = [
  { width: 64, height: undefined, fit: "inside" },
  { width: 64, height: 3840, fit: "inside" },
  { width: 3840, height: 96, fit: "inside" },
  { width: 128, height: 96, fit: "inside" },
  { width: 96, height: 128, fit: "inside" },
  { width: 640, height: undefined, fit: "inside" },
  { width: undefined, height: 2048, fit: "inside" },
  { width: 3840, height: 3840, fit: "inside" },
  { width: 96, height: 96, fit: "cover" },
  { width: 64, height: 32, fit: "contain" },
];

describe("boundedBox", () => {
  it.each([
    [400, 300],
    [333, 1000],
    [97, 61],
  ])("leaves out only what does not change the image of a %i×%i original", async (width, height) => {
    const source = await noise(width, height);
    for (const box of BOXES) {
      const bounded = boundedBox(box, { width, height });
      // A cover or contain box beyond the image: bounded on purpose, so not the same image (see above).
      if (box.fit !== "inside" && bounded !== box) continue;
      const asked = await resized(source, box);
      const made = await resized(source, bounded);
      expect([made.width, made.height, made.data.equals(asked.data)], JSON.stringify(box)).toEqual([
        asked.width,
        asked.height,
        true,
      ]);
    }
  });

  it("leaves out every side the image is within, and the side that does not bind", () => {
    const size = { width: 400, height: 300 };
    expect(boundedBox({ width: 640, height: undefined, fit: "inside" }, size)).toEqual({ fit: "inside" });
    expect(boundedBox({ width: 64, height: 3840, fit: "inside" }, size)).toEqual({
      width: 64,
      fit: "inside",
    });
    expect(boundedBox({ width: 3840, height: 96, fit: "inside" }, size)).toEqual({
      height: 96,
      fit: "inside",
    });
    expect(boundedBox({ width: 3840, height: 3840, fit: "contain" }, size)).toEqual({
      width: 400,
      height: 400,
      fit: "contain",
    });
    expect(boundedBox({ width: 3840, height: 1920, fit: "cover" }, size)).toEqual({
      width: 400,
      height: 200,
      fit: "cover",
    });
  });
});
