// Size and blurHash of an image. Both are best effort: a value sharp cannot produce is null.
import { encode } from "blurhash";
import sharp from "sharp";

/** The blurHash is computed from a thumbnail this many pixels on its longer side; enough for 4x3 components. */
const BLURHASH_THUMBNAIL = 32;
/**
 * Decoding is refused above this many pixels (~7000x7000). A 5 MiB upload can still claim a huge canvas
 * (a "decompression bomb"); this keeps one upload from allocating gigabytes. Such images keep their size
 * but get no blurHash.
 */
const MAX_DECODED_PIXELS = 50_000_000;

export interface ImageProbe {
  width: number | null;
  height: number | null;
  blurHash: string | null;
}

export async function probeImage(bytes: Uint8Array): Promise<ImageProbe> {
  const [size, blurHash] = await Promise.all([readSize(bytes), computeBlurHash(bytes)]);
  return { ...size, blurHash };
}

async function readSize(bytes: Uint8Array): Promise<Pick<ImageProbe, "width" | "height">> {
  try {
    // metadata() reads the header only, so the pixel limit is irrelevant here.
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
    // The size as displayed: EXIF orientation 5–8 swaps width and height. For animations, one frame.
    const { width, height } = metadata.autoOrient ?? metadata;
    return { width: positiveOrNull(width), height: positiveOrNull(metadata.pageHeight ?? height) };
  } catch {
    return { width: null, height: null };
  }
}

async function computeBlurHash(bytes: Uint8Array): Promise<string | null> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_DECODED_PIXELS })
      .autoOrient()
      .resize(BLURHASH_THUMBNAIL, BLURHASH_THUMBNAIL, { fit: "inside" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixels = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
    return encode(pixels, info.width, info.height, 4, 3);
  } catch {
    return null;
  }
}

function positiveOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : null;
}
