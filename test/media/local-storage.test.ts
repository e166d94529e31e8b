import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalMediaStorage } from "../../src/media/local-storage.ts";
import { newMediaKey } from "../../src/media/media-key.ts";
import { serveLocalMedia } from "../../src/media/serve-local-media.ts";
import { isSelfServed } from "../../src/media/storage.ts";
import { makeImage } from "./helpers/make-files.ts";
import { listFiles, makeTempDir } from "./helpers/temp-dir.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let storage: LocalMediaStorage;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  temp = await makeTempDir("local-media");
  storage = new LocalMediaStorage({
    dir: path.join(temp.dir, "media"),
    publicBaseUrl: "https://cms.example.com/",
  });
  const app = express();
  app.use(serveLocalMedia(storage));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await temp.remove();
});

/** Fetches the path of a media URL from the test server. */
function get(url: string, init?: RequestInit) {
  return fetch(`${origin}${new URL(url).pathname}`, init);
}

/** A request with a path exactly as written; fetch would normalise "..". */
function rawGet(rawPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, path: rawPath }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

describe("LocalMediaStorage", () => {
  it("is served by the service itself", () => {
    expect(isSelfServed(storage)).toBe(true);
  });

  it("stores the bytes under the key and leaves no temporary file", async () => {
    const key = newMediaKey("ws1", "png");
    const png = await makeImage("png");
    await storage.put(key, png, "image/png");
    expect(await readFile(path.join(temp.dir, "media", ...key.split("/")))).toEqual(png);
    expect(await listFiles(path.join(temp.dir, "media", "ws1"))).toEqual([key.split("/")[1]]);
  });

  it("stores a streamed body under the key, read a chunk at a time", async () => {
    const key = newMediaKey("ws-stream", "png");
    const png = Buffer.from(await makeImage("png"));
    const chunks = [png.subarray(0, 10), png.subarray(10)];
    await storage.putStream(key, Readable.from(chunks), png.byteLength, "image/png");
    expect(await readFile(path.join(temp.dir, "media", ...key.split("/")))).toEqual(png);
    expect(await listFiles(path.join(temp.dir, "media", "ws-stream"))).toEqual([key.split("/")[1]]);
  });

  it("publishes nothing when a streamed body is shorter or longer than announced", async () => {
    const short = newMediaKey("ws-stream-bad", "png");
    await expect(
      storage.putStream(short, Readable.from([Buffer.alloc(10)]), 11, "image/png"),
    ).rejects.toThrow(/10 bytes instead of the 11/);
    const long = newMediaKey("ws-stream-bad", "png");
    await expect(
      storage.putStream(long, Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), 15, "image/png"),
    ).rejects.toThrow(/more than the 15 bytes/);
    expect(await listFiles(path.join(temp.dir, "media", "ws-stream-bad"))).toEqual([]);
  });

  it("publishes nothing when a streamed body fails half way", async () => {
    const key = newMediaKey("ws-stream-fail", "png");
    async function* failing() {
      yield Buffer.alloc(10);
      throw new Error("archive cut short");
    }
    await expect(storage.putStream(key, Readable.from(failing()), 20, "image/png")).rejects.toThrow(
      "archive cut short",
    );
    expect(await listFiles(path.join(temp.dir, "media", "ws-stream-fail"))).toEqual([]);
  });

  it("builds absolute URLs under /media from the public base", () => {
    expect(storage.urlFor("ws1/0123456789abcdef0123456789abcdef.png")).toBe(
      "https://cms.example.com/media/ws1/0123456789abcdef0123456789abcdef.png",
    );
  });

  it("refuses keys that are not its own format", async () => {
    for (const key of [
      "../escape.png",
      "ws1/../../escape.png",
      "ws1/name.png",
      "/etc/passwd",
      "ws1/a/b.png",
    ]) {
      await expect(storage.put(key, new Uint8Array([1]), "image/png")).rejects.toThrow(TypeError);
      await expect(storage.delete(key)).rejects.toThrow(TypeError);
      expect(await storage.read(key)).toBeNull();
    }
    expect(existsSync(path.join(temp.dir, "escape.png"))).toBe(false);
  });

  it("leaves no partial file when a put fails", async () => {
    const key = newMediaKey("ws-fail", "png");
    // A directory where the file should go makes the final rename fail after the bytes were written.
    await mkdir(path.join(temp.dir, "media", ...key.split("/")), { recursive: true });
    await expect(storage.put(key, new Uint8Array(100), "image/png")).rejects.toThrow();
    expect(await listFiles(path.join(temp.dir, "media", "ws-fail"))).toEqual([]);
  });

  it("deletes idempotently", async () => {
    const key = newMediaKey("ws1", "png");
    await storage.put(key, await makeImage("png"), "image/png");
    await storage.delete(key);
    expect(existsSync(path.join(temp.dir, "media", ...key.split("/")))).toBe(false);
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });
});

describe("serveLocalMedia", () => {
  it("serves a stored file with its type and long-lived cache headers", async () => {
    const key = newMediaKey("ws2", "png");
    const png = await makeImage("png");
    await storage.put(key, png, "image/png");

    const response = await get(storage.urlFor(key));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-length")).toBe(String(png.length));
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
  });

  it("answers HEAD with the headers only", async () => {
    const key = newMediaKey("ws2", "pdf");
    await storage.put(key, Buffer.from("%PDF-1.4 tiny"), "application/pdf");
    const response = await get(storage.urlFor(key), { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-length")).toBe("13");
    expect(await response.text()).toBe("");
  });

  it("serves byte ranges, as players need to seek", async () => {
    const key = newMediaKey("ws2", "mp4");
    const bytes = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
    await storage.put(key, bytes, "video/mp4");

    const first = await get(storage.urlFor(key), { headers: { range: "bytes=10-19" } });
    expect(first.status).toBe(206);
    expect(first.headers.get("content-range")).toBe("bytes 10-19/100");
    expect(Buffer.from(await first.arrayBuffer())).toEqual(bytes.subarray(10, 20));

    const tail = await get(storage.urlFor(key), { headers: { range: "bytes=-5" } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(95));

    const open = await get(storage.urlFor(key), { headers: { range: "bytes=90-" } });
    expect(open.headers.get("content-range")).toBe("bytes 90-99/100");

    const past = await get(storage.urlFor(key), { headers: { range: "bytes=100-" } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe("bytes */100");
  });

  it("answers a revalidation with 304", async () => {
    const key = newMediaKey("ws2", "png");
    await storage.put(key, await makeImage("png"), "image/png");
    const first = await get(storage.urlFor(key));
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{32}\.png-\d+"$/);
    const again = await get(storage.urlFor(key), { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
  });

  it("answers 404 JSON for a missing file", async () => {
    const response = await fetch(`${origin}/media/ws2/0123456789abcdef0123456789abcdef.png`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: "Not found", message: expect.any(String) });
  });

  it("answers 404 once the file is deleted", async () => {
    const key = newMediaKey("ws2", "png");
    await storage.put(key, await makeImage("png"), "image/png");
    expect((await get(storage.urlFor(key))).status).toBe(200);
    await storage.delete(key);
    expect((await get(storage.urlFor(key))).status).toBe(404);
  });

  it("refuses path traversal in every spelling", async () => {
    // A file just outside the store that a traversal would reach.
    await writeFile(path.join(temp.dir, "secret.png"), "secret");
    for (const rawPath of [
      "/media/../secret.png",
      "/media/..%2fsecret.png",
      "/media/..%2Fsecret.png",
      "/media/%2e%2e/secret.png",
      "/media/ws2/..%2f..%2fsecret.png",
      "/media/ws2/%2e%2e%2f%2e%2e%2fsecret.png",
      "/media/..\\secret.png",
      "/media/%00/secret.png",
    ]) {
      const { status, body } = await rawGet(rawPath);
      expect.soft(status, rawPath).toBe(404);
      expect.soft(body, rawPath).not.toContain("secret");
    }
  });

  it("never serves a temporary file from an unfinished write", async () => {
    const key = newMediaKey("ws3", "png");
    await mkdir(path.join(temp.dir, "media", "ws3"), { recursive: true });
    await writeFile(path.join(temp.dir, "media", `${key}.0a1b2c3d4e5f.partial`), "partial");
    expect((await rawGet(`/media/${key}.0a1b2c3d4e5f.partial`)).status).toBe(404);
  });
});
