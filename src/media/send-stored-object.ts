// Sends a stored object (an original, a variant) the way every media file is sent: immutable caching,
// a strong ETag, byte ranges, HEAD, 304 and 416.
import { pipeline } from "node:stream/promises";
import type { Request, Response } from "express";
import { parseByteRange } from "./byte-range.ts";
import type { StoredMediaObject } from "./storage.ts";

const IMMUTABLE_HEADERS = {
  // A key is never reused for different bytes (a new upload gets a new random key, a variant's key is
  // derived from it and computed once), so the URL names the content's version and caches may keep it.
  "Cache-Control": "public, max-age=31536000, immutable",
  "X-Content-Type-Options": "nosniff",
  // Media is meant to be embedded by the sites consuming this API, which live on other origins; stating it
  // keeps a stricter default (helmet sets same-origin) from breaking their <img> and <video> tags.
  "Cross-Origin-Resource-Policy": "cross-origin",
  "Accept-Ranges": "bytes",
};

export interface SentObjectHeaders {
  etag: string;
  contentType: string;
  /** Request headers the answer depends on (`Accept` when the format was negotiated). */
  vary?: string | undefined;
}

/** A strong ETag from the key (unique per content) and the size: no hash of the bytes is needed. */
export function storedObjectETag(key: string, size: number): string {
  return `"${key.slice(key.indexOf("/") + 1)}-${size}"`;
}

/** Answers with `object` (opened): whole, a range of it, only its headers, 304 or 416. */
export async function sendStoredObject(
  object: StoredMediaObject,
  headers: SentObjectHeaders,
  req: Request,
  res: Response,
): Promise<void> {
  res.set(IMMUTABLE_HEADERS);
  res.setHeader("Content-Type", headers.contentType);
  res.setHeader("ETag", headers.etag);
  if (headers.vary) res.setHeader("Vary", headers.vary);
  if (matchesETag(req, headers.etag)) {
    res.status(304).end();
    return;
  }

  const range = parseByteRange(req.headers.range, object.size);
  if (range === "unsatisfiable") {
    res.status(416).setHeader("Content-Range", `bytes */${object.size}`);
    res.end();
    return;
  }
  if (range) {
    res.status(206).setHeader("Content-Range", `bytes ${range.start}-${range.end}/${object.size}`);
  }
  res.setHeader("Content-Length", String(range ? range.end - range.start + 1 : object.size));
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  await pipeline(object.open(range ?? undefined), res);
}

function matchesETag(req: Request, etag: string): boolean {
  const header = req.headers["if-none-match"];
  if (!header) return false;
  return header === "*" || header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
