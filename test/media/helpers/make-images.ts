// Real images of each kind a transform meets, made by sharp in memory: each one carries a feature the
// answer must keep or undo (an EXIF rotation, an alpha channel, an animation), so a test can check it by
// decoding the answer.
import sharp from "sharp";

/** A width×height image, left half red and right half blue: a rotation shows where the halves went. */
function halves(width: number, height: number, alpha = false) {
  const channels = alpha ? 4 : 3;
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      const left = x < width / 2;
      pixels[i] = left ? 255 : 0;
      pixels[i + 2] = left ? 0 : 255;
      // With alpha: the top half opaque, the bottom half fully transparent.
      if (alpha) pixels[i + 3] = y < height / 2 ? 255 : 0;
    }
  return sharp(pixels, { raw: { width, height, channels } });
}

/**
 * A JPEG stored 400×300 (landscape, red on the left) with EXIF orientation 6: displayed rotated 90° clockwise,
 * 300×400 (portrait, red on top).
 */
export function makeRotatedJpeg(): Promise<Buffer> {
  return halves(400, 300).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
}

/** A 400×300 PNG whose bottom half is transparent. */
export function makeAlphaPng(): Promise<Buffer> {
  return halves(400, 300, true).png().toBuffer();
}

export function makeWebp(): Promise<Buffer> {
  return halves(400, 300).webp().toBuffer();
}

export function makeAvif(): Promise<Buffer> {
  return halves(400, 300).avif().toBuffer();
}

/** An animated GIF of `frames` frames (400×300 unless told), each a different grey (none is dropped as a duplicate). */
export async function makeAnimatedGif(frames = 3, width = 400, height = 300): Promise<Buffer> {
  const images = await Promise.all(
    Array.from({ length: frames }, (_, i) =>
      sharp({
        create: { width, height, channels: 3, background: { r: 15 * i, g: 15 * i, b: 15 * i } },
      })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(images, { join: { animated: true } })
    .gif({ delay: 100 })
    .toBuffer();
}

/** An SVG with a script in it: what must never be rasterised nor stored. */
export function makeSvg(): Buffer {
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><script>alert(1)</script><rect width="400" height="300" fill="red"/></svg>',
  );
}

/** The first `fraction` of a JPEG: a header that promises more pixels than the data holds. */
export async function makeTruncatedJpeg(fraction = 0.5): Promise<Buffer> {
  const whole = await halves(400, 300).jpeg().toBuffer();
  return whole.subarray(0, Math.floor(whole.length * fraction));
}

/** Gaussian noise: it compresses badly, so each encode of it (AVIF above all) takes a while. */
export function makeNoise(width: number, height: number, sigma = 60) {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma },
    },
  });
}

/** A JPEG of noise (see makeNoise). */
export function makeNoiseJpeg(width: number, height: number): Promise<Buffer> {
  return makeNoise(width, height).jpeg({ quality: 70 }).toBuffer();
}
