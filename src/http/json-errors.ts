// The JSON bodies of errors the HTTP layer itself answers (before or outside GraphQL). Every error body
// of the service has `error` and `message`; REST-specific mappings live in src/rest/errors.ts.
import type { ErrorRequestHandler, Response } from "express";
import { isDatabaseUnreachable } from "../db/database-unreachable.ts";
import { isStatementTimeout } from "../db/statement-timeout.ts";
import {
  InvalidInputError,
  StorageUnavailableError,
  TransformsBusyError,
  UntransformableMediaError,
} from "../domain/errors.ts";
import { databaseUnavailableError, RETRY_AFTER_TIMEOUT_SECONDS, timeoutError } from "../graphql/errors.ts";
import type { Logger } from "../logger.ts";
import type { KeyState } from "./request-caller.ts";

export function sendError(
  res: Response,
  status: number,
  error: string,
  message: string,
  extra: object = {},
): void {
  res.status(status).json({ error, message, ...extra });
}

/**
 * Why a request without a usable key is refused; the same words on REST and GraphQL. A typo (a key whose
 * checksum does not match), an expired key and an unknown or revoked one are told apart, so whoever holds
 * the key knows what to fix; nothing here tells a stranger whether a key of that form exists.
 */
export function unauthorizedMessage(req: { keyState?: KeyState; keyExpiredAt?: string }): string {
  switch (req.keyState) {
    case "invalid":
      return "The API key is invalid or has been revoked";
    case "malformed":
      return "The API key is malformed: it is not a key this service issues (check that it was copied whole)";
    case "expired":
      return `The API key expired at ${req.keyExpiredAt}: create a new one or rotate it`;
    default:
      return "An API key is required: send it in the Authorization header (`<key>` or `Bearer <key>`)";
  }
}

/** A key that lets nobody in: 401; a valid key used from where its owner did not allow: 403. */
export function sendKeyRefusal(
  res: Response,
  req: { keyState?: KeyState; keyExpiredAt?: string; keyRefusal?: string },
): void {
  if (req.keyState === "refused")
    sendError(res, 403, "Forbidden", req.keyRefusal ?? "This API key is not for use here");
  else sendError(res, 401, "Unauthorized", unauthorizedMessage(req));
}

/**
 * Last handler: malformed JSON → 400, oversized body → 413, media storage past its deadline (a local file
 * served at /media/…) → 503 with Retry-After, an image transform's refusals (400, 422, and 503 with
 * Retry-After when every transform slot stays busy), anything else → 500 with nothing leaked.
 */
export function jsonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const type = (error as { type?: string }).type;
    if (res.headersSent) return;
    if (type === "entity.parse.failed") {
      sendError(res, 400, "Invalid JSON", "The request body is not valid JSON");
    } else if (type === "entity.too.deep") {
      sendError(res, 400, "Validation failed", "Invalid request body", {
        details: [{ field: "body", message: (error as Error).message }],
      });
    } else if (type === "entity.too.large") {
      sendError(res, 413, "Payload too large", "The request body exceeds the size limit");
    } else if (type === "encoding.unsupported" || type === "charset.unsupported") {
      sendError(res, 415, "Unsupported encoding", "The request body encoding is not supported");
    } else if (isStatementTimeout(error)) {
      // A statement outside GraphQL (the cache's head read, say) reached the database's deadline.
      logger.warn("a statement reached the database deadline", { method: req.method, path: req.path });
      res.setHeader("Retry-After", String(RETRY_AFTER_TIMEOUT_SECONDS));
      sendError(res, 503, "Service unavailable", timeoutError().message);
    } else if (isDatabaseUnreachable(error)) {
      // The key lookup or the cache's head read met a database that is not there for a moment.
      logger.warn("the database could not be reached", { method: req.method, path: req.path });
      res.setHeader("Retry-After", String(RETRY_AFTER_TIMEOUT_SECONDS));
      sendError(res, 503, "Service unavailable", databaseUnavailableError().message);
    } else if (error instanceof StorageUnavailableError) {
      // Logged once already, where the deadline passed (src/media/storage-deadlines.ts).
      res.setHeader("Retry-After", String(error.retryAfterSeconds));
      sendError(res, 503, "Storage unavailable", error.message);
    } else if (error instanceof InvalidInputError) {
      // Parameters of an image transform (GET /media/<key>?w=…) that the rules refuse.
      sendError(res, 400, "Validation failed", error.message, { details: error.details });
    } else if (error instanceof UntransformableMediaError) {
      sendError(res, 422, "Cannot transform this file", error.message, { reason: error.reason });
    } else if (error instanceof TransformsBusyError) {
      res.setHeader("Retry-After", String(error.retryAfterSeconds));
      sendError(res, 503, "Service unavailable", error.message);
    } else if (isClientErrorStatus(error)) {
      // Express and its body parsers mark the client's mistakes (e.g. a path segment that is not valid
      // percent-encoding) with a 4xx status; their messages are safe to show but say little.
      sendError(res, error.status, "Bad request", `The request could not be understood (${error.status})`);
    } else {
      logger.error("unhandled error", {
        method: req.method,
        path: req.path,
        error: (error as Error)?.stack ?? String(error),
      });
      sendError(
        res,
        500,
        "Internal server error",
        "Something went wrong on our side; the error has been logged",
      );
    }
  };
}

function isClientErrorStatus(error: unknown): error is { status: number } {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status < 500;
}
