// The errors a rule of the domain can refuse a write or a lookup with, whatever door the request came
// through. They carry what the client needs to hear (the message, the fields at fault) and nothing of a
// transport: src/graphql/errors.ts gives each kind its `extensions.code` and HTTP status (and REST, in
// turn, its body). Anything else thrown stays unexpected: logged and masked, a 500.
import { echoInput } from "./echo-input.ts";

/** One thing wrong with one field of the input; `field` is a dotted path (`socials.0.url`). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A refusal the client can act on: by changing the request or, for StorageUnavailableError, retrying later. */
export abstract class DomainError extends Error {}

/** The record a request names does not exist in the caller's workspace. */
export class NotFoundError extends DomainError {
  override name = "NotFoundError";

  constructor(
    readonly resource: string,
    identifier: string,
  ) {
    super(`${resource} "${echoInput(identifier)}" does not exist in this workspace`);
  }
}

/** Input the rules refuse; `details` names every field at fault, so a client can fix all at once. */
export class InvalidInputError extends DomainError {
  override name = "InvalidInputError";

  constructor(
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
  }
}

/** A value that must be unique in the workspace (a slug, a field key) is already taken. */
export class ConflictError extends DomainError {
  override name = "ConflictError";

  constructor(
    message: string,
    readonly field = "slug",
  ) {
    super(message);
  }
}

/** The caller may not do this (a public key writing, or reading drafts). */
export class ForbiddenError extends DomainError {
  override name = "ForbiddenError";

  constructor(
    message = "This operation needs a private API key; public keys can only read",
    /** The scope the caller's key lacks (src/auth/scopes.ts), when a scope is what is missing. */
    readonly requiredScope?: string,
  ) {
    super(message);
  }
}

/** Input over a size limit of the domain (an upload beyond the media limit). */
export class PayloadTooLargeError extends DomainError {
  override name = "PayloadTooLargeError";
}

/**
 * Why a preview token does not open the post a read names: `invalid` (not made by this service, or
 * altered), `expired`, `revoked` (the post's previews were revoked after it was made) or `other-post`
 * (it opens another post, or a post of another workspace).
 */
export type PreviewTokenProblem = "invalid" | "expired" | "revoked" | "other-post";

/** A preview token that grants nothing (here): the read is refused, whatever the post's status. */
export class PreviewTokenError extends DomainError {
  override name = "PreviewTokenError";

  constructor(
    readonly problem: PreviewTokenProblem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The media storage did not answer within its deadline (MEDIA_STORAGE_TIMEOUT_MS): nothing was stored or
 * removed as far as the request is concerned, and the same request may succeed after `retryAfterSeconds`.
 */
export class StorageUnavailableError extends DomainError {
  override name = "StorageUnavailableError";

  constructor(readonly retryAfterSeconds: number) {
    super("The media storage did not answer in time; try again shortly");
  }
}

/**
 * Why a media file cannot be transformed as asked: `not-an-image` (a PDF, a video, an SVG: SVG is never
 * rasterised), `too-many-pixels` (the input or the output is over its pixel limit: a decompression bomb
 * ends here), `undecodable` (truncated or corrupt), `animation` (an animated file asked for a format that
 * cannot animate, or an animated PNG, which the decoder would flatten to its first frame).
 */
export type TransformRefusal = "not-an-image" | "too-many-pixels" | "undecodable" | "animation";

/** The file exists and the parameters are well-formed, but this file cannot be given that transform. */
export class UntransformableMediaError extends DomainError {
  override name = "UntransformableMediaError";

  constructor(
    readonly reason: TransformRefusal,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Every transform slot of this instance (MEDIA_TRANSFORM_CONCURRENCY) stayed busy for as long as a request
 * may wait (MEDIA_TRANSFORM_QUEUE_WAIT_MS): the same request may succeed after `retryAfterSeconds`.
 */
export class TransformsBusyError extends DomainError {
  override name = "TransformsBusyError";

  constructor(readonly retryAfterSeconds: number) {
    super("Too many images are being transformed at once; try again shortly");
  }
}

/** An export or import archive that is not the portable format this version reads (src/transfer). */
export class ArchiveFormatError extends Error {
  override name = "ArchiveFormatError";
}

/** A source an importer reads (a Ghost or WordPress export, a markdown folder, a /v1 API) it cannot use. */
export class ImportSourceError extends Error {
  override name = "ImportSourceError";
}

/** A media file that a record lists but the storage (or the source) cannot give. */
export class MediaFileMissingError extends Error {
  override name = "MediaFileMissingError";
}

/**
 * A URL an import reads (a media file, a page of a /v1 source) that named a target the import may not
 * reach, or gave no usable answer within the import's limits. The message never says what the target
 * answered (a status, a refused connection, a timeout, a size): an import file must not turn the service
 * into a probe of what it can reach (src/transfer/remote-fetch.ts).
 */
export class RemoteFetchError extends Error {
  override name = "RemoteFetchError";
}
