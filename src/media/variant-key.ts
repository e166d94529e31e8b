// A transformed image (a variant) is stored next to its original under a key derived from the original's
// key and the normalised transform: `<workspace>/<32 hex>/<transform>.<extension>` beside
// `<workspace>/<32 hex>.<extension>`. Every variant of an original shares one prefix, so deleting the
// original can delete its variants without knowing which were ever asked for.
import { isMediaKey } from "./media-key.ts";
import type { OutputFormat, ResolvedTransform } from "./transform-params.ts";

const VARIANT_KEY = /^[A-Za-z0-9_-]{1,64}\/[0-9a-f]{32}\/[a-z0-9_]{1,64}\.(jpg|png|gif|webp|avif)$/;

/** The extension (and so, when served, the Content-Type) each output format is stored under. */
export const EXTENSION_OF_FORMAT: Record<OutputFormat, string> = {
  jpeg: "jpg",
  png: "png",
  gif: "gif",
  webp: "webp",
  avif: "avif",
};

/** The folder-like prefix every variant of the original `key` is stored under (ends with "/"). */
export function variantPrefix(key: string): string {
  if (!isMediaKey(key)) throw new TypeError(`Not a media key: ${key}`);
  return `${key.slice(0, key.lastIndexOf("."))}/`;
}

/** Formats whose encoder has no quality setting (image-transform.ts): one variant serves every `q`. */
const WITHOUT_QUALITY: readonly OutputFormat[] = ["png", "gif"];

/** The key of one variant: the same transform of the same original always yields the same key. */
export function variantKey(key: string, transform: ResolvedTransform): string {
  const parts = [
    transform.width === undefined ? null : `w${transform.width}`,
    transform.height === undefined ? null : `h${transform.height}`,
    transform.fit,
    WITHOUT_QUALITY.includes(transform.format) ? null : `q${transform.quality}`,
  ].filter((part) => part !== null);
  return `${variantPrefix(key)}${parts.join("_")}.${EXTENSION_OF_FORMAT[transform.format]}`;
}

/** Whether `key` has the shape variantKey produces (and so is safe to use as a relative path). */
export function isVariantKey(key: string): boolean {
  return VARIANT_KEY.test(key);
}

/** Whether `prefix` is one variantPrefix produces (safe to remove everything under it). */
export function isVariantPrefix(prefix: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}\/[0-9a-f]{32}\/$/.test(prefix);
}
