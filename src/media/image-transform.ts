// Computes one variant of an image with sharp (libvips): EXIF orientation applied, metadata stripped
// (sharp writes none unless asked), animations kept as animations. The pixel limits are checked from
// the header before any pixel is decoded, so a decompression bomb costs a header read.
import sharp, { type Metadata, type OutputOptions } from "sharp";
import { UntransformableMediaError } from "../domain/errors.ts";
import { boundedBox, outputSize } from "./transform-box.ts";
import { ANIMATABLE_FORMATS } from "./transform-format.ts";
import type { ResolvedTransform } from "./transform-params.ts";

export interface PixelLimits {
  /** Pixels of the input, every frame counted. */
  maxInputPixels: number;
  /** Pixels of the output at most, every frame counted. */
  maxOutputPixels: number;
}

/** The encoded variant and its size. */
export interface TransformedImage {
  bytes: Buffer;
  width: number;
  height: number;
}

/** Applies `transform` to the image in `source`; throws UntransformableMediaError when it cannot. */
export async function transformImage(
  source: Uint8Array,
  transform: ResolvedTransform,
  limits: PixelLimits,
): Promise<TransformedImage> {
  const header = await readHeader(source);
  const frames = header.pages ?? 1;
  const animated = frames > 1;
  if (animated && !ANIMATABLE_FORMATS.includes(transform.format))
    throw new UntransformableMediaError(
      "animation",
      `This image is animated; ask for fm=webp or fm=auto (or no fm) to keep it animated, ${transform.format} cannot hold an animation`,
    );
  if (isAnimatedPng(source))
    throw new UntransformableMediaError(
      "animation",
      "Animated PNGs are not transformed (the decoder would keep only the first frame); use the original URL",
    );
  const { width, height } = displayedFrameSize(header);
  if (width * height * frames > limits.maxInputPixels)
    throw new UntransformableMediaError(
      "too-many-pixels",
      `The image has more pixels (${width}×${height}${animated ? `, ${frames} frames` : ""}) than a transform decodes (${limits.maxInputPixels}); use the original URL`,
    );
  // Padding and every frame count: a few bytes of GIF padded to a large box are as many pixels to write.
  const box = boundedBox(transform, { width, height });
  const output = outputSize(box, { width, height });
  if (output.width * output.height * frames > limits.maxOutputPixels)
    throw new UntransformableMediaError(
      "too-many-pixels",
      `The transform would write more pixels than allowed (${limits.maxOutputPixels}); ask for a smaller w or h`,
    );

  try {
    const { data, info } = await sharp(source, {
      animated,
      limitInputPixels: limits.maxInputPixels,
      // Truncated or corrupt data is refused rather than served half grey.
      failOn: "error",
    })
      .autoOrient()
      .resize({
        width: box.width,
        height: box.height,
        fit: box.fit,
        withoutEnlargement: true,
        // `contain` pads: transparent where the format has alpha, white in a JPEG.
        background: transform.format === "jpeg" ? "#ffffff" : { r: 0, g: 0, b: 0, alpha: 0 },
      })
      .toFormat(transform.format, encoderOptions(transform))
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.pageHeight ?? info.height };
  } catch (error) {
    throw new UntransformableMediaError(
      "undecodable",
      `The image could not be decoded (${(error as Error).message.split("\n")[0]})`,
    );
  }
}

async function readHeader(source: Uint8Array): Promise<Metadata> {
  try {
    // Header only: no pixel is decoded, so no pixel limit applies yet (checked just after).
    return await sharp(source, { limitInputPixels: false, animated: true }).metadata();
  } catch {
    throw new UntransformableMediaError("undecodable", "The file is not an image this service can decode");
  }
}

/** One frame's size as displayed: EXIF orientations 5–8 swap width and height. */
function displayedFrameSize(header: Metadata): { width: number; height: number } {
  const frameHeight = header.pageHeight ?? header.height;
  const swapped = (header.orientation ?? 1) >= 5;
  return swapped
    ? { width: frameHeight, height: header.width }
    : { width: header.width, height: frameHeight };
}

/** Per-format encoder settings: the quality where the format has one, effort kept moderate for AVIF. */
function encoderOptions(transform: ResolvedTransform): OutputOptions & Record<string, unknown> {
  switch (transform.format) {
    case "jpeg":
      return { quality: transform.quality, mozjpeg: true };
    case "webp":
      return { quality: transform.quality };
    case "avif":
      // Effort 4 of 9 (sharp's default): AVIF is the slowest encoder here, and each variant is made once.
      return { quality: transform.quality, effort: 4 };
    case "png":
      return { compressionLevel: 9 };
    case "gif":
      return {};
  }
}

/**
 * An APNG has an `acTL` chunk before its first `IDAT`; libvips reads only the default image of it. The
 * upload stores APNGs as .png, so the bytes are the only place that says so.
 */
function isAnimatedPng(source: Uint8Array): boolean {
  const bytes = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  if (bytes.readUInt32BE(0) !== 0x89504e47) return false;
  const acTL = bytes.indexOf("acTL", 8, "latin1");
  const idat = bytes.indexOf("IDAT", 8, "latin1");
  return acTL !== -1 && (idat === -1 || acTL < idat);
}
