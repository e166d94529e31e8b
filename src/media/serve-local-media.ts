// Serves the local media store at GET /media/<key>. Only well-formed keys are looked up, so the URL can
// never name a file outside the store, and each object is sent with the type its key's extension —
// from the allow-list — says, never a sniffed one.
import { type Response, Router } from "express";
import { contentTypeForExtension } from "./allowed-types.ts";
import { LOCAL_MEDIA_PATH } from "./local-storage.ts";
import { isMediaKey, mediaKeyExtension } from "./media-key.ts";
import { sendStoredObject, storedObjectETag } from "./send-stored-object.ts";
import type { SelfServedMediaStorage, StoredMediaObject } from "./storage.ts";

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
      await sendStoredObject(object, { etag: storedObjectETag(key, object.size), contentType }, req, res);
    } catch (error) {
      // Once bytes are on the wire, pipeline has already torn the response down (usually the client left).
      if (!res.headersSent) next(error);
    } finally {
      await object.close();
    }
  });
  return router;
}

export function notFound(res: Response): void {
  res.status(404).json({ error: "Not found", message: "No media file exists at this URL" });
}
