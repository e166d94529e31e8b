// Issue 54: media deduplicated by content. The real Ghost 2.9 export names its covers and profile
// images at several URLs; its hosts, played by test servers on 127.0.0.1, answer the same bytes for
// every .jpg and other bytes for everything else, so the file holds two distinct files behind many URLs.
// Imported once, and again under another file name with its images at another host (other URLs, the
// same bytes), the workspace must hold one media record and one stored file per distinct content.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importInto } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import { uploadMedia } from "../media/helpers/upload-media.ts";
import { ghost29WithImagesAt, REAL } from "./helpers/real-corpus.ts";
import { type Handler, type TestHost, testHost } from "./helpers/remote-hosts.ts";

type Row = Record<string, unknown>;

/** The image URLs of the 2.9 export an import fetches: post covers and profile images. */
function fetchedUrls(): string[] {
  const data = JSON.parse(readFileSync(path.join(REAL, "ghost/default-export-2.9.json"), "utf8")).db[0].data;
  return [
    ...data.posts.map((post: Row) => post.feature_image),
    ...data.users.map((user: Row) => user.profile_image),
  ].filter((url): url is string => typeof url === "string" && url.startsWith("https://"));
}

describe("import of the same images at other URLs", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "media-dedup-"));
  let app: TestApp;
  let hosts: TestHost[];
  let jpg: Buffer;
  beforeAll(async () => {
    jpg = await makeImage("jpeg");
    const other = await makeImage("png", 32, 32);
    const handler: Handler = (req, res) => {
      const bytes = req.url?.endsWith(".jpg") ? jpg : other;
      res
        .writeHead(200, { "content-type": req.url?.endsWith(".jpg") ? "image/jpeg" : "image/png" })
        .end(bytes);
    };
    hosts = [await testHost(handler), await testHost(handler)];
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all(hosts.map((host) => host.close()));
    rmSync(folder, { recursive: true, force: true });
  });

  const importAt = async (ws: TestWorkspace, host: TestHost, name: string, dryRun = false) => {
    const dir = path.join(folder, name);
    mkdirSync(dir, { recursive: true });
    return importInto(
      { db: app.db, config: app.config, storage: app.mediaStorage },
      { ...ws, name: "dedup" },
      { from: "ghost", location: ghost29WithImagesAt(host.url(""), dir) },
      { dryRun, webhooks: false },
    );
  };
  const counts = async (ws: TestWorkspace) => {
    const storage = app.config.media.storage;
    if (storage.kind !== "local") throw new Error("these tests count files of the local storage");
    const dir = path.join(storage.dir, ws.id);
    return {
      records: await app.db.prisma.media.count({ where: { workspaceId: ws.id } }),
      files: readdirSync(dir).length,
    };
  };

  it("stores one file and one record per distinct content, on import and on a re-import", async () => {
    const urls = fetchedUrls();
    const distinct = new Set(urls.map((url) => url.endsWith(".jpg"))).size;
    expect(new Set(urls).size).toBeGreaterThan(distinct);
    const ws = await app.workspace("dedup");

    const first = await importAt(ws, hosts[0] as TestHost, "first");
    expect(first.failures).toEqual([]);
    expect(await counts(ws)).toEqual({ records: distinct, files: distinct });

    const again = await importAt(ws, hosts[1] as TestHost, "second");
    expect(again.failures).toEqual([]);
    expect(await counts(ws)).toEqual({ records: distinct, files: distinct });

    // Every cover and profile image names one of those files.
    const stored = await app.db.prisma.media.findMany({
      where: { workspaceId: ws.id },
      select: { storageKey: true },
    });
    const keys = new Set(stored.map((row) => row.storageKey));
    const authors = (await app.request("GET", "/v1/authors", { key: ws.privateKey })).body.authors as Row[];
    const posts = (await app.request("GET", "/v1/posts?limit=100", { key: ws.privateKey })).body
      .posts as Row[];
    const named = [...authors.map((author) => author.image), ...posts.map((post) => post.coverImage)];
    const keysNamed = named
      .filter(Boolean)
      .map((url) => new URL(String(url)).pathname.replace(/^\/media\//, ""));
    expect(keysNamed.length).toBeGreaterThan(0);
    expect(keysNamed.filter((key) => !keys.has(key))).toEqual([]);
  });

  it("does not store again a file an upload stored", async () => {
    const ws = await app.workspace("uploaded first");
    await uploadMedia(app.url, ws.privateKey, jpg, "uploaded.jpg");
    const distinct = new Set(fetchedUrls().map((url) => url.endsWith(".jpg"))).size;
    const summary = await importAt(ws, hosts[0] as TestHost, "after-upload");
    expect(summary.failures).toEqual([]);
    expect(await counts(ws)).toEqual({ records: distinct, files: distinct });
  });

  // The issue: "its counts match the real import's". A dry run that stores nothing must still tell the
  // records whose bytes the workspace (or an earlier record of the run) has from new ones.
  it("counts in a dry run what the real import then does, duplicate contents included", async () => {
    const counted = (summary: Awaited<ReturnType<typeof importAt>>) => ({
      totals: summary.totals,
      byKind: summary.byKind,
      conflicts: summary.conflicts,
      failures: summary.failures,
      leftOut: summary.leftOut,
      mediaBytes: summary.mediaBytes,
    });
    const fresh = await app.workspace("dry run, fresh");
    const uploaded = await app.workspace("dry run, uploaded first");
    await uploadMedia(app.url, uploaded.privateKey, jpg, "uploaded.jpg");
    for (const [name, ws] of [
      ["dry-fresh", fresh],
      ["dry-uploaded", uploaded],
    ] as const) {
      const dry = await importAt(ws, hosts[0] as TestHost, name, true);
      expect(
        await app.db.prisma.media.count({ where: { workspaceId: ws.id, name: { not: "uploaded.jpg" } } }),
      ).toBe(0);
      const real = await importAt(ws, hosts[0] as TestHost, name);
      expect(counted(dry)).toEqual(counted(real));
      expect(real.byKind.media?.skipped).toBeGreaterThan(0);
    }
  });
});
