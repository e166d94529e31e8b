// The URLs of transformed images, as the GraphQL API hands them out. They always point at the service
// (GET /media/<key>?…), whatever the storage backend: a bucket cannot transform.
import type { Config } from "../config.ts";
import { LOCAL_MEDIA_PATH } from "./local-storage.ts";
import { isMediaKey, mediaKeyExtension } from "./media-key.ts";
import { sourceFormatOf } from "./transform-format.ts";
import { type ImageTransform, transformQuery } from "./transform-params.ts";

/** The absolute URL the service is reached at (no trailing slash). */
export function serviceBaseUrl(config: Pick<Config, "publicUrl" | "port">): string {
  // Without PUBLIC_URL, URLs point at the service on this machine: right for development, while a
  // deployment behind a proxy or domain must set PUBLIC_URL for the URLs to be reachable.
  return (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, "");
}

/** Whether the file at `key` is a raster image a transform accepts (SVG, video, documents are not). */
export function isTransformable(key: string): boolean {
  return sourceFormatOf(mediaKeyExtension(key) ?? "") !== undefined;
}

/** The URL of `transform` of the file at `key`. */
export function transformUrl(baseUrl: string, key: string, transform: Partial<ImageTransform>): string {
  const query = transformQuery(transform);
  return `${baseUrl}${LOCAL_MEDIA_PATH}/${key}${query ? `?${query}` : ""}`;
}

/** A `srcset` attribute: one `<url> <width>w` candidate per width. */
export function srcSet(
  baseUrl: string,
  key: string,
  widths: readonly number[],
  options: Partial<Pick<ImageTransform, "format" | "quality">>,
): string {
  return widths.map((width) => `${transformUrl(baseUrl, key, { ...options, width })} ${width}w`).join(", ");
}

/**
 * The storage key behind `url` when it is the URL of a file this service stores (`urlFor(key)`), as a
 * post's cover (a plain URL field) may be; undefined for any other URL.
 */
export function storedKeyOfUrl(urlFor: (key: string) => string, url: string): string | undefined {
  const prefix = urlFor("");
  if (!url.startsWith(prefix)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(url.slice(prefix.length));
  } catch {
    return undefined;
  }
  return isMediaKey(key) ? key : undefined;
}
