// Which format a variant is written in. Settled from the request alone (the original's extension, the
// `fm` parameter, the Accept header), never from the original's bytes: the variant's key depends on it,
// and a stored variant must be found without reading the original.
import type { OutputFormat, RequestableFormat } from "./transform-params.ts";

/** The raster formats a transform reads, by the extension of the original's key. */
const SOURCE_FORMAT_OF_EXTENSION: Record<string, OutputFormat> = {
  jpg: "jpeg",
  png: "png",
  gif: "gif",
  webp: "webp",
  avif: "avif",
};

/** The format of the original behind `extension`, or undefined when it is no raster image we transform. */
export function sourceFormatOf(extension: string): OutputFormat | undefined {
  return Object.hasOwn(SOURCE_FORMAT_OF_EXTENSION, extension)
    ? SOURCE_FORMAT_OF_EXTENSION[extension]
    : undefined;
}

/** Formats that can hold an animation: an animated GIF or WebP is only ever written as one of these. */
export const ANIMATABLE_FORMATS: readonly OutputFormat[] = ["webp", "gif"];

/**
 * The variant's format. Unset: the original's. `auto`: AVIF, then WebP, as the Accept header allows —
 * except for GIF and WebP originals, which may be animated and so get WebP (AVIF animations are not
 * written); without either, JPEG for a JPEG original, GIF for a GIF (kept animated) and PNG otherwise.
 */
export function chooseOutputFormat(
  requested: RequestableFormat | undefined,
  source: OutputFormat,
  accept: string | undefined,
): OutputFormat {
  if (requested === undefined) return source;
  if (requested !== "auto") return requested;
  const accepted = acceptedImageTypes(accept);
  const mayBeAnimated = source === "gif" || source === "webp";
  if (!mayBeAnimated && accepted.has("image/avif")) return "avif";
  if (accepted.has("image/webp")) return "webp";
  if (source === "jpeg" || source === "gif") return source;
  return "png";
}

/**
 * The image types an Accept header names explicitly with a quality above zero. A wildcard (`image/*`,
 * `*\/*`) is not taken as support for AVIF or WebP: browsers that decode them say so by name.
 */
function acceptedImageTypes(accept: string | undefined): Set<string> {
  const types = new Set<string>();
  for (const range of (accept ?? "").split(",")) {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith("q="));
    if (quality && Number(quality.slice(2)) === 0) continue;
    types.add(type);
  }
  return types;
}
