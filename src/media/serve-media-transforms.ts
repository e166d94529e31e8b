// GET /media/<key>?w=…&h=…&fit=…&fm=…&q=…: a transformed image, for every storage backend (an S3 bucket
// cannot transform, so these URLs always point at the service). A URL without transform parameters is
// left to the routes after this one (serveLocalMedia for the local disk). A variant not stored yet draws
// on the client address's transform budget (the service's rate limiter, keyed as every keyless request
// is): the URLs need no key, so the budget is what stops one client from computing variants without end.
import { Router } from "express";
import { UntransformableMediaError } from "../domain/errors.ts";
import { newVariantsKey } from "../limits/rate-budgets.ts";
import { admitOrAnswer429 } from "../limits/rate-limit-middleware.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import { LOCAL_MEDIA_PATH } from "./local-storage.ts";
import { isMediaKey, mediaKeyExtension } from "./media-key.ts";
import type { MediaVariants, OpenedVariant } from "./media-variants.ts";
import { sendStoredObject, storedObjectETag } from "./send-stored-object.ts";
import { notFound } from "./serve-local-media.ts";
import { chooseOutputFormat, sourceFormatOf } from "./transform-format.ts";
import { hasTransformParameters, parseTransform, type TransformRules } from "./transform-params.ts";

export interface TransformBudget {
  limiter: RateLimiter;
  /** New variants one client address may have computed per rate-limit window. */
  limit: number;
}

export function serveMediaTransforms(
  variants: MediaVariants,
  rules: TransformRules,
  budget: TransformBudget,
): Router {
  const router = Router();
  router.get(`${LOCAL_MEDIA_PATH}/*key`, async (req, res, next) => {
    const queryStart = req.originalUrl.indexOf("?");
    const search = new URLSearchParams(queryStart === -1 ? "" : req.originalUrl.slice(queryStart + 1));
    if (!hasTransformParameters(search)) {
      next();
      return;
    }
    // As in serveLocalMedia: the raw path must have the key's shape, so it never names anything else.
    const key = req.path.slice(LOCAL_MEDIA_PATH.length + 1);
    if (!isMediaKey(key)) {
      notFound(res);
      return;
    }
    try {
      const transform = parseTransform(search, rules);
      const source = sourceFormatOf(mediaKeyExtension(key) ?? "");
      if (!source) {
        if (!(await variants.hasOriginal(key))) return notFound(res);
        // Videos, audio, documents — and SVG, were it ever stored: it is served as it is, never rasterised.
        throw new UntransformableMediaError(
          "not-an-image",
          "Only JPEG, PNG, GIF, WebP and AVIF images can be transformed; use the file's URL without parameters",
        );
      }
      const format = chooseOutputFormat(transform.format, source, req.headers.accept);
      const found = await variants.find(key, { ...transform, format });
      if (found.found === "no-original") return notFound(res);
      let variant: OpenedVariant | null;
      if (found.found === "stored") variant = found.variant;
      else {
        const decision = await budget.limiter.consume(newVariantsKey(req), budget.limit);
        if (!admitOrAnswer429(res, decision)) return;
        variant = await found.compute();
      }
      if (!variant) return notFound(res);
      try {
        await sendStoredObject(
          variant.object,
          {
            etag: storedObjectETag(variant.key, variant.object.size),
            contentType: variant.contentType,
            vary: transform.format === "auto" ? "Accept" : undefined,
          },
          req,
          res,
        );
      } finally {
        await variant.object.close();
      }
    } catch (error) {
      // Once bytes are on the wire, pipeline has already torn the response down (usually the client left).
      if (!res.headersSent) next(error);
    }
  });
  return router;
}
