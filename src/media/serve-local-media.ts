// Serves the local media store at GET /media/<key>. Only well-formed keys are looked up, so the URL can
// never name a file outside the store, and each object is sent with the type its key's extension —
// from the allow-list — says, never a sniffed one.
import { pipeline } from "node:stream/promises";
import { type Request, type Response, Router } from "express";
import { contentTypeForExtension } from "./allowed-types.ts";
import { parseByteRange } from "./byte-range.ts";
import { LOCAL_MEDIA_PATH } from "./local-storage.ts";
import { isMediaKey, mediaKeyExtension } from "./media-key.ts";
import type { SelfServedMediaStorage, StoredMediaObject } from "./storage.ts";

const IMMUTABLE_HEADERS = {
  // A key is never reused for different bytes (a new upload gets a new random key), so caches may keep it.
  "Cache-Control": "public, max-age=31536000, immutable",
  "X-Content-Type-Options": "nosniff",
  // Media is meant to be embedded by the sites consuming this API, which live on other origins; stating it
  // keeps a stricter default (helmet sets same-origin) from breaking their <img> and <video> tags.
  "Cross-Origin-Resource-Policy": "cross-origin",
  "Accept-Ranges": "bytes",
};

/** An express router serving `GET`/`HEAD /media/*` from `storage`; mount it at the application root. */
export function serveLocalMedia(storage: Pick<SelfServedMediaStorage, "read">): Router {
  const router = Router();
  router.get(`${LOCAL_MEDIA_PATH}/*key`, async (req, res, next) => {
    // The raw (still percent-encoded) path is matched against the key format, so encoded slashes or
    // dots can never be decoded into a path segment.
    const key = req.path.slice(LOCAL_MEDIA_PATH.length + 1);
    const contentType = isMediaKey(key) ? contentTypeForExtension(mediaKeyExtension(key) ?? "") : undefined;
    let object: StoredMediaObject | null = null;
    try {
      // A disk that does not answer in time ends here (StorageUnavailableError: 503, json-errors.ts).
      object = contentType ? await storage.read(key) : null;
    } catch (error) {
      next(error);
      return;
    }
    if (!contentType || !object) {
      notFound(res);
      return;
    }
    try {
      await answerWith(object, key, contentType, req, res);
    } catch (error) {
      // Once bytes are on the wire, pipeline has already torn the response down (usually the client left).
      if (!res.headersSent) next(error);
    } finally {
      await object.close();
    }
  });
  return router;
}

/** Answers with `object` (opened): whole, a range of it, only its headers, 304 or 416. */
async function answerWith(
  object: StoredMediaObject,
  key: string,
  contentType: string,
  req: Request,
  res: Response,
): Promise<void> {
  const etag = `"${key.slice(key.indexOf("/") + 1)}-${object.size}"`;
  res.set(IMMUTABLE_HEADERS);
  res.setHeader("Content-Type", contentType);
  res.setHeader("ETag", etag);
  if (matchesETag(req, etag)) {
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

function notFound(res: Response): void {
  res.status(404).json({ error: "Not found", message: "No media file exists at this URL" });
}
