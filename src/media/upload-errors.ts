// Errors a media upload can end in because of what the client sent. Each carries the HTTP status it maps
// to, so the REST and GraphQL layers can translate them with one `instanceof MediaUploadError` check
// instead of string-matching messages.

/** Base class of every client-caused upload failure; `status` is the HTTP status to answer with. */
export abstract class MediaUploadError extends Error {
  abstract readonly status: 400 | 413;
}

/** The file is larger than the configured limit. Raised while streaming, before the rest is read. */
export class UploadTooLargeError extends MediaUploadError {
  override name = "UploadTooLargeError";
  readonly status = 413 as const;

  constructor(
    /** The limit that was exceeded, in bytes. */
    readonly maxBytes: number,
  ) {
    super(`The file is larger than the limit of ${formatBytes(maxBytes)}`);
  }
}

/** The body is not multipart/form-data, is cut off, or breaks the form's own limits (field count, size). */
export class MalformedUploadError extends MediaUploadError {
  override name = "MalformedUploadError";
  readonly status = 400 as const;
}

/** The file's bytes are of a type outside the allow-list, or of no recognisable type at all. */
export class UnsupportedMediaTypeError extends MediaUploadError {
  override name = "UnsupportedMediaTypeError";
  readonly status = 400 as const;

  constructor(
    /** The type detected from the bytes; null when the content could not be recognised. */
    readonly detectedMimeType: string | null,
    /** Why a recognised type was still refused (e.g. "it contains macros"), when the type alone is not the reason. */
    readonly reason?: string,
  ) {
    super(
      detectedMimeType === null
        ? "The file's type could not be recognised from its contents; upload an image, video, audio file, PDF or office document"
        : reason
          ? `Files of type ${detectedMimeType} are not accepted when ${reason}`
          : `Files of type ${detectedMimeType} are not accepted; upload an image, video, audio file, PDF or office document`,
    );
  }
}

/** A limit as people write it: whole MiB when it is one, else bytes. */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  return `${bytes} bytes`;
}
