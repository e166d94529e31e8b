// Decodes an uploaded image once: its size, its blurHash, and whether it is an image at all. A file
// whose magic bytes say PNG but whose pixels cannot be decoded (truncated, corrupt) is refused, since
// no browser could show it either.
import { encode } from "blurhash";
import sharp from "sharp";

/** The blurHash is computed from a thumbnail this many pixels on its longer side; enough for 4x3 components. */
const BLURHASH_THUMBNAIL = 32;
/**
 * Decoding is refused above this many pixels (~7000x7000). A 5 MiB upload can still claim a huge canvas
 * (a "decompression bomb"); this keeps one upload from allocating gigabytes.
 */
const MAX_DECODED_PIXELS = 50_000_000;

export interface ImageProbe {
  width: number | null;
  height: number | null;
  blurHash: string | null;
}

/**
 * The image's size and blurHash, or null when its bytes cannot be decoded as the image they claim to be.
 * `bytes` may also be the path of a file holding them: sharp then reads the file itself.
 */
export async function probeImage(bytes: Uint8Array | string): Promise<ImageProbe | null> {
  const size = await readHeaderSize(bytes);
  if (!size) return null;
  // A canvas above the pixel limit is not decoded, so its pixels are never checked: it is kept with
  // the size its header states and no blurHash. Refusing it instead would refuse real photographs
  // above ~50 megapixels, and decoding it is exactly what the limit exists to prevent; its header
  // has been parsed, so it is at least a well-formed file of its type.
  if (size.width * size.height > MAX_DECODED_PIXELS) return { ...size, blurHash: null };
  const thumbnail = await decodeThumbnail(bytes);
  if (!thumbnail) return null;
  const pixels = new Uint8ClampedArray(
    thumbnail.data.buffer,
    thumbnail.data.byteOffset,
    thumbnail.data.byteLength,
  );
  return { ...size, blurHash: encode(pixels, thumbnail.info.width, thumbnail.info.height, 4, 3) };
}

/** The displayed size from the header alone (no pixel is decoded), or null when there is no readable header. */
async function readHeaderSize(bytes: Uint8Array | string): Promise<{ width: number; height: number } | null> {
  try {
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
    // The size as displayed: EXIF orientation 5–8 swaps width and height. For animations, one frame.
    const { width, height } = metadata.autoOrient ?? metadata;
    const frameHeight = metadata.pageHeight ?? height;
    if (!isPositiveInteger(width) || !isPositiveInteger(frameHeight)) return null;
    return { width, height: frameHeight };
  } catch {
    return null;
  }
}

/**
 * Decodes every pixel of the first frame into a small thumbnail; null when the data is cut short or
 * corrupt (`failOn: "error"` refuses truncation and decoder errors, while tolerating the warnings many
 * real cameras' files raise).
 */
async function decodeThumbnail(bytes: Uint8Array | string) {
  try {
    return await sharp(bytes, { limitInputPixels: MAX_DECODED_PIXELS, failOn: "error" })
      .autoOrient()
      .resize(BLURHASH_THUMBNAIL, BLURHASH_THUMBNAIL, { fit: "inside" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    return null;
  }
}

function isPositiveInteger(value: number | undefined): value is number {
  return value !== undefined && Number.isInteger(value) && value > 0;
}
