// An upload through the REST door, as a client makes one: multipart `file`, the workspace's private key.
import { expect } from "vitest";

export interface UploadedMedia {
  id: string;
  url: string;
}

/** Uploads `bytes` as `filename` to the service at `baseUrl`; expects a 201 and returns the media item. */
export async function uploadMedia(
  baseUrl: string,
  privateKey: string,
  bytes: Uint8Array,
  filename: string,
): Promise<UploadedMedia> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), filename);
  const response = await fetch(`${baseUrl}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: privateKey },
    body: form,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { media: UploadedMedia }).media;
}
