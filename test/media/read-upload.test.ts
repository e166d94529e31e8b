import { once } from "node:events";
import http, { type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMultipartUpload } from "../../src/media/read-upload.ts";
import {
  MalformedUploadError,
  MediaUploadError,
  UploadTooLargeError,
} from "../../src/media/upload-errors.ts";

const MAX_BYTES = 5 * 1024 * 1024;

interface Outcome {
  error?: Error;
  /** Body bytes the server had received when the reader settled. */
  bytesReadAtSettle: number;
}

// A stand-in for the REST route: reads the upload and maps the typed errors to their statuses.
let server: http.Server;
let baseUrl: string;
let lastOutcome: Promise<Outcome>;

async function handle(req: IncomingMessage, res: http.ServerResponse): Promise<Outcome> {
  // Connections are kept alive between tests, so count from this request's start.
  const bytesBefore = req.socket.bytesRead;
  const bytesRead = () => req.socket.bytesRead - bytesBefore;
  try {
    const upload = await readMultipartUpload(req, { maxBytes: MAX_BYTES, maxFieldBytes: 1024 });
    const outcome = { bytesReadAtSettle: bytesRead() };
    const file = upload.file && {
      size: upload.file.bytes.byteLength,
      filename: upload.file.filename,
      claimedType: upload.file.claimedType,
      first: upload.file.bytes[0],
      last: upload.file.bytes[upload.file.bytes.byteLength - 1],
    };
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ file, fields: upload.fields }));
    return outcome;
  } catch (error) {
    const outcome = { error: error as Error, bytesReadAtSettle: bytesRead() };
    const status = error instanceof MediaUploadError ? error.status : 500;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: (error as Error).name, message: (error as Error).message }));
    return outcome;
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    lastOutcome = handle(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** `size` bytes, each its index modulo 251, so the first and last byte show truncation or shifting. */
function payload(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

async function upload(form: FormData) {
  const response = await fetch(`${baseUrl}/upload`, { method: "POST", body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function fileForm(size: number, filename = "photo.png", fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([payload(size)], { type: "image/png" }), filename);
  return form;
}

/** Sends a raw request and resolves with the status, for bodies fetch cannot produce. */
function rawRequest(headers: Record<string, string>, body: string | Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}/upload`, { method: "POST", headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("readMultipartUpload: size limit", () => {
  it("accepts a file of exactly the limit", async () => {
    const { status, body } = await upload(fileForm(MAX_BYTES));
    expect(status).toBe(200);
    expect(body.file).toEqual({
      size: MAX_BYTES,
      filename: "photo.png",
      claimedType: "image/png",
      first: 0,
      last: (MAX_BYTES - 1) % 251,
    });
  });

  it("accepts a file one byte under the limit", async () => {
    const { status, body } = await upload(fileForm(MAX_BYTES - 1));
    expect(status).toBe(200);
    expect(body.file).toMatchObject({ size: MAX_BYTES - 1 });
  });

  it("refuses a file one byte over the limit with UploadTooLargeError (413)", async () => {
    const { status, body } = await upload(fileForm(MAX_BYTES + 1));
    expect(status).toBe(413);
    expect(body).toEqual({
      error: "UploadTooLargeError",
      message: "The file is larger than the limit of 5 MiB",
    });
    const outcome = await lastOutcome;
    expect(outcome.error).toBeInstanceOf(UploadTooLargeError);
    expect((outcome.error as UploadTooLargeError).maxBytes).toBe(MAX_BYTES);
  });

  it("stops at the limit instead of reading a much larger file first, and still answers 413", async () => {
    const { status } = await upload(fileForm(40 * 1024 * 1024));
    expect(status).toBe(413);
    const outcome = await lastOutcome;
    expect(outcome.error).toBeInstanceOf(UploadTooLargeError);
    // Rejected near the 5 MiB mark (the count starts after the request's first chunk, hence the margin
    // below); only socket buffering separates the two numbers, not the remaining 35 MiB.
    expect(outcome.bytesReadAtSettle).toBeGreaterThan(MAX_BYTES - 1024 * 1024);
    expect(outcome.bytesReadAtSettle).toBeLessThan(8 * 1024 * 1024);
  });
});

describe("readMultipartUpload: form contents", () => {
  it("returns the text fields and the client's UTF-8 file name", async () => {
    const { status, body } = await upload(fileForm(10, "Grüße 📷.png", { name: "Holiday", alt: "A beach" }));
    expect(status).toBe(200);
    expect(body.fields).toEqual({ name: "Holiday", alt: "A beach" });
    expect(body.file).toMatchObject({ filename: "Grüße 📷.png", size: 10 });
  });

  it("keeps only the base name of a file name with a path", async () => {
    const { body } = await upload(fileForm(10, "C:\\Users\\me\\..\\evil.png"));
    expect(body.file).toMatchObject({ filename: "evil.png" });
  });

  it("returns file: null for a form without a file", async () => {
    const form = new FormData();
    form.append("alt", "nothing");
    const { status, body } = await upload(form);
    expect(status).toBe(200);
    expect(body).toEqual({ file: null, fields: { alt: "nothing" } });
  });

  it("treats an empty, nameless file part (a form with no file chosen) as no file", async () => {
    const form = new FormData();
    form.append("file", new Blob([]), "");
    const { body } = await upload(form);
    expect(body.file).toBeNull();
  });
});

describe("readMultipartUpload: malformed bodies (400)", () => {
  async function expectMalformed(status: number) {
    expect(status).toBe(400);
    expect((await lastOutcome).error).toBeInstanceOf(MalformedUploadError);
  }

  it("refuses a JSON body", async () => {
    await expectMalformed(await rawRequest({ "content-type": "application/json" }, '{"file":"x"}'));
  });

  it("refuses a urlencoded body", async () => {
    await expectMalformed(
      await rawRequest({ "content-type": "application/x-www-form-urlencoded" }, "file=x"),
    );
  });

  it("refuses a body without a content type", async () => {
    await expectMalformed(await rawRequest({}, "hello"));
  });

  it("refuses multipart without a boundary", async () => {
    await expectMalformed(await rawRequest({ "content-type": "multipart/form-data" }, "hello"));
  });

  it("refuses a multipart body that is cut off", async () => {
    const body =
      "--XYZ\r\n" +
      'Content-Disposition: form-data; name="file"; filename="a.png"\r\n' +
      "Content-Type: image/png\r\n\r\n" +
      "half a file";
    await expectMalformed(await rawRequest({ "content-type": "multipart/form-data; boundary=XYZ" }, body));
  });

  it("refuses two files", async () => {
    const form = fileForm(10);
    form.append("file", new Blob([payload(10)]), "second.png");
    const { status } = await upload(form);
    await expectMalformed(status);
  });

  it("refuses a file under another field name", async () => {
    const form = new FormData();
    form.append("image", new Blob([payload(10)]), "a.png");
    const { status, body } = await upload(form);
    await expectMalformed(status);
    expect(body.message).toBe('Unexpected file field "image"; send the file as "file"');
  });

  it("refuses an over-long text field", async () => {
    const { status, body } = await upload(fileForm(10, "a.png", { alt: "x".repeat(2000) }));
    await expectMalformed(status);
    expect(body.message).toBe('Field "alt" is longer than 1024 bytes');
  });

  it("rejects when the client disconnects mid-upload", async () => {
    const req = http.request(`${baseUrl}/upload`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=XYZ", "content-length": "100000" },
    });
    req.on("error", () => {});
    req.write('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nsome bytes');
    await new Promise((resolve) => setTimeout(resolve, 50));
    req.destroy();
    const outcome = await lastOutcome;
    expect(outcome.error).toBeInstanceOf(MalformedUploadError);
    expect(outcome.error?.message).toBe("The upload was interrupted");
  });
});
