// What a transform makes of an original of a known size, never enlarging it. `cover` and `contain` fill
// the requested box exactly, so when the image would have to grow to fill it, the box shrinks instead
// (keeping its proportions) until the image fits it at its own size: a 10×10 PNG asked for 3840×3840
// with `contain` is 10×10, not ten pixels padded to 14.7 million. `inside` keeps only the side that
// binds. Both the transform (image-transform.ts) and the variant's key (variant-key.ts) use this, so
// requests that make the same image share one stored variant.
import type { ResolvedTransform } from "./transform-params.ts";

/** An image's size as displayed (one frame of an animation). */
export interface ImageSize {
  width: number;
  height: number;
}

type Box = Pick<ResolvedTransform, "width" | "height" | "fit">;

/** The smallest transform that makes the same image of an original of `size` as `transform` does. */
export function boundedBox<T extends Box>(transform: T, size: ImageSize): T {
  const { width, height } = transform;
  if (transform.fit !== "inside" && width !== undefined && height !== undefined) {
    const scaleX = width / size.width;
    const scaleY = height / size.height;
    const scale = transform.fit === "cover" ? Math.max(scaleX, scaleY) : Math.min(scaleX, scaleY);
    if (scale <= 1) return transform;
    // Contain: the box divided by its scale still holds the image (each side ≥ the image's); cover: it
    // still lies within the image. Rounding keeps that, as the image's sides are whole numbers.
    return {
      ...transform,
      width: Math.max(1, Math.round(width / scale)),
      height: Math.max(1, Math.round(height / scale)),
    };
  }
  const scaleX = width === undefined ? Number.POSITIVE_INFINITY : width / size.width;
  const scaleY = height === undefined ? Number.POSITIVE_INFINITY : height / size.height;
  if (Math.min(scaleX, scaleY) >= 1) return { ...transform, width: undefined, height: undefined };
  return scaleX <= scaleY ? { ...transform, height: undefined } : { ...transform, width: undefined };
}

/** The size of one frame of the output of `transform` (already bounded) on an original of `size`. */
export function outputSize(transform: Box, size: ImageSize): ImageSize {
  const { width, height } = transform;
  // Cover crops to the box and contain pads to it: either way the output is the whole box.
  if (transform.fit !== "inside" && width !== undefined && height !== undefined) return { width, height };
  const scale = Math.min(
    1,
    width === undefined ? 1 : width / size.width,
    height === undefined ? 1 : height / size.height,
  );
  return {
    width: Math.max(1, Math.ceil(size.width * scale)),
    height: Math.max(1, Math.ceil(size.height * scale)),
  };
}
