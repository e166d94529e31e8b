// Reads a multipart/form-data upload into memory, refusing an oversized file as soon as it is detected.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { Readable, Writable } from "node:stream";
import { MalformedUploadError, UploadTooLargeError } from "./upload-errors.ts";

export interface ReadMultipartUploadOptions {
  /** Largest accepted file, in bytes; one byte more is an UploadTooLargeError. */
  maxBytes: number;
  /** Name of the form field carrying the file. Default "file". */
  fileField?: string;
  /** Most text fields accepted. Default 20. */
  maxFields?: number;
  /** Largest text field value, in bytes. Default 64 KiB. */
  maxFieldBytes?: number;
}

export interface UploadedFile {
  bytes: Uint8Array;
  /** The name the client gave, without any directory part; may be "". Never used as a path. */
  filename: string;
  /** The Content-Type the client claimed for the part; informational only. */
  claimedType: string;
}

export interface MultipartUpload {
  /** The file, or null when the form had no file field (or an empty one, as browsers send for "no file"). */
  file: UploadedFile | null;
  /** Text fields; when a name repeats, the last value wins. */
  fields: Record<string, string>;
}

/**
 * Reads the request body as multipart/form-data. Rejects with UploadTooLargeError as soon as the file
 * passes `maxBytes` (the remaining body is drained unbuffered, so the caller can still answer 413), and
 * with MalformedUploadError for a body that is not multipart/form-data, is cut off or breaks the limits.
 */
export function readMultipartUpload(
  req: IncomingMessage,
  options: ReadMultipartUploadOptions,
): Promise<MultipartUpload> {
  const { maxBytes, fileField = "file", maxFields = 20, maxFieldBytes = 64 * 1024 } = options;

  // busboy also parses urlencoded bodies, which can never carry a file.
  const contentType = req.headers["content-type"] ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    return Promise.reject(new MalformedUploadError("Expected a multipart/form-data body"));
  }

  let parser: Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // busboy signals 'limit' on *reaching* fileSize, so one more byte than allowed marks "too large".
      limits: {
        fileSize: maxBytes + 1,
        files: 1,
        fields: maxFields,
        fieldSize: maxFieldBytes,
        parts: maxFields + 1,
      },
      // Browsers send UTF-8 file names; busboy's default of latin1 would garble them.
      defParamCharset: "utf8",
    });
  } catch (error) {
    return Promise.reject(
      new MalformedUploadError("The multipart/form-data header is malformed", { cause: error }),
    );
  }

  return new Promise((resolve, reject) => {
    let settled = false;
    let file: UploadedFile | null = null;
    const fields: Record<string, string> = Object.create(null);

    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      // Stop parsing, but keep draining the request without buffering it: a client still sending its
      // body would otherwise see a reset connection instead of the error response.
      req.unpipe(parser);
      req.resume();
      reject(error);
    };

    parser.on("file", (name, stream, info) => {
      if (name !== fileField) {
        stream.resume();
        fail(new MalformedUploadError(`Unexpected file field "${name}"; send the file as "${fileField}"`));
        return;
      }
      const chunks: Buffer[] = [];
      // busboy destroys the file stream with its own error when the body ends inside the file.
      stream.on("error", (error: Error) =>
        fail(new MalformedUploadError(`The multipart body is malformed: ${error.message}`, { cause: error })),
      );
      stream.on("data", (chunk: Buffer) => {
        if (!settled) chunks.push(chunk);
      });
      stream.on("limit", () => {
        chunks.length = 0;
        fail(new UploadTooLargeError(maxBytes));
      });
      stream.on("end", () => {
        if (settled) return;
        const bytes = Buffer.concat(chunks);
        const filename = info.filename ?? "";
        // An HTML form with no file chosen still sends the part, with an empty name and no content.
        if (bytes.byteLength === 0 && filename === "") return;
        file = { bytes, filename, claimedType: info.mimeType };
      });
    });
    parser.on("field", (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) {
        fail(new MalformedUploadError(`Field "${name}" is longer than ${maxFieldBytes} bytes`));
        return;
      }
      fields[name] = value;
    });
    parser.on("filesLimit", () => fail(new MalformedUploadError("Send exactly one file per upload")));
    parser.on("fieldsLimit", () =>
      fail(new MalformedUploadError(`Too many form fields (at most ${maxFields})`)),
    );
    parser.on("partsLimit", () => fail(new MalformedUploadError("Too many form parts")));
    parser.on("error", (error: Error) =>
      fail(new MalformedUploadError(`The multipart body is malformed: ${error.message}`, { cause: error })),
    );
    // busboy emits 'close' only once every part, the file's included, has been read to its end.
    parser.on("close", () => {
      if (settled) return;
      settled = true;
      resolve({ file, fields });
    });

    req.on("error", (error) =>
      fail(new MalformedUploadError("The upload was interrupted", { cause: error })),
    );
    // A client that disconnects mid-body ends the request without an error on some Node versions.
    req.on("close", () => {
      if (!req.complete) fail(new MalformedUploadError("The upload was interrupted"));
    });
    req.pipe(parser);
  });
}

// busboy ships no types and @types/busboy is not a dependency; this is the part of its API used here.
interface BusboyConfig {
  headers: IncomingHttpHeaders;
  limits?: { fileSize?: number; files?: number; fields?: number; fieldSize?: number; parts?: number };
  defParamCharset?: string;
}
interface FileInfo {
  /** Undefined when the part has no (or an empty) filename parameter. */
  filename: string | undefined;
  encoding: string;
  mimeType: string;
}
interface FieldInfo {
  nameTruncated: boolean;
  valueTruncated: boolean;
}
interface BusboyEvents {
  on(event: "file", listener: (name: string, stream: Readable, info: FileInfo) => void): this;
  on(event: "field", listener: (name: string, value: string, info: FieldInfo) => void): this;
  on(event: "filesLimit" | "fieldsLimit" | "partsLimit" | "close", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
}
// The event overloads come first so that listeners are typed by them, not by Writable's catch-all.
type Busboy = BusboyEvents & Writable;
const busboy = createRequire(import.meta.url)("busboy") as (config: BusboyConfig) => Busboy;
