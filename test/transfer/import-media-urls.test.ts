// Issue 54, item 9: imported media were named by absolute URLs built from the importing process's
// PORT (the CLI's default 3000), so a server on any other port served covers, body images and author
// images that pointed nowhere. The real Ghost 2.9 export, its image hosts on a test server on 127.0.0.1,
// imported as the CLI does (its own config: no PUBLIC_URL, PORT unset) into the storage of a server
// listening on another port without PUBLIC_URL; every media URL read back over HTTP must answer there.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { extract } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportToFile } from "../../src/transfer/transfer-commands.ts";
import { freePort } from "../helpers/free-port.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import { uploadMedia } from "../media/helpers/upload-media.ts";
import { importGhostAsCli, referenceBases } from "./helpers/cli-port-import.ts";
import { type TestHost, testHost } from "./helpers/remote-hosts.ts";

const IMG_SRC = /<img[^>]*\ssrc="([^"]+)"/g;
/** The post lines of a portable archive, read with tar-stream rather than the service's own reader. */
async function archivedPosts(file: string): Promise<{ slug: string; revisions: { snapshot: unknown }[] }[]> {
  const tar = extract();
  const reading = (async () => {
    const posts: { slug: string; revisions: { snapshot: unknown }[] }[] = [];
    for await (const entry of tar) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      if (!entry.header.name.startsWith("post/")) continue;
      for (const line of Buffer.concat(chunks).toString("utf8").split("\n"))
        if (line.trim()) posts.push(JSON.parse(line));
    }
    return posts;
  })();
  tar.end(gunzipSync(readFileSync(file)));
  return reading;
}
const MIGRATION = path.resolve(
  import.meta.dirname,
  "../../prisma/migrations/20261128014000_media_references_relative/migration.sql",
);

describe("media imported by a CLI without PUBLIC_URL, served by a server on another port", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "media-urls-"));
  let app: TestApp;
  let host: TestHost;
  let port: number;
  beforeAll(async () => {
    const image = await makeImage("png");
    host = await testHost((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(image));
    port = await freePort();
    app = await startTestApp({
      port,
      ownMediaBase: true,
      env: { PORT: String(port), WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await host?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("gives covers, body images and author images URLs that answer on the server", async () => {
    expect(port).not.toBe(3000);
    const ws = await app.workspace("media urls");
    const summary = await importGhostAsCli(app, ws, { imageBase: host.url(""), scratch: folder });
    expect(summary.failures).toEqual([]);
    expect(summary.byKind.media?.created).toBeGreaterThan(0);

    const list = await app.request("GET", "/v1/posts?limit=100", { key: ws.privateKey });
    const posts = list.body.posts as { slug: string }[];
    const urls: string[] = [];
    for (const { slug } of posts) {
      const post = (await app.request("GET", `/v1/posts/${slug}`, { key: ws.privateKey })).body.post;
      if (post.coverImage) urls.push(post.coverImage);
      for (const match of (post.content as string).matchAll(IMG_SRC)) urls.push(match[1] as string);
    }
    const authors = (await app.request("GET", "/v1/authors", { key: ws.privateKey })).body.authors as {
      image: string | null;
    }[];
    for (const author of authors) if (author.image) urls.push(author.image);

    const own = urls.filter((url) => !url.startsWith(host.url("")));
    // Every cover and author image of the file was imported: those at least name this server's files.
    expect(own.length).toBeGreaterThanOrEqual(posts.length + authors.length);
    expect(own.map((url) => new URL(url).port)).toEqual(own.map(() => String(port)));
    const answers = await Promise.all(own.map(async (url) => (await fetch(url)).status));
    expect(answers).toEqual(own.map(() => 200));
  });

  // Data stored before: references written absolute with the CLI's port, as imports wrote them.
  it("serves references stored with another port before, once the migration has run", async () => {
    const ws = await app.workspace("stored before");
    const urlOf = async (name: string) =>
      new URL((await uploadMedia(app.url, ws.privateKey, await makeImage("png"), name)).url).pathname;
    const [cover, inBody, portrait] = [await urlOf("c.png"), await urlOf("b.png"), await urlOf("p.png")];
    const old = (relative: string) => `http://localhost:3000${relative}`;
    const author = await app.request("POST", "/v1/authors", {
      key: ws.privateKey,
      body: { name: "Old", slug: "old", image: old(portrait) },
    });
    const category = await app.request("POST", "/v1/categories", {
      key: ws.privateKey,
      body: { name: "Old", slug: "old" },
    });
    const post = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: {
        title: "Old",
        slug: "old",
        description: "d",
        categoryId: category.body.category.id,
        status: "published",
        coverImage: old(cover),
        content: `<p><img src="${old(inBody)}" alt=""></p>`,
        authors: [author.body.author.id],
      },
    });
    expect(post.status).toBe(201);
    await app.db.sql.exec(readFileSync(MIGRATION, "utf8"));
    const read = (await app.request("GET", `/v1/posts/${post.body.post.slug}`, { key: ws.privateKey })).body
      .post;
    const urls = [
      read.coverImage,
      ...[...read.content.matchAll(IMG_SRC)].map((m) => m[1]),
      read.authors[0].image,
    ];
    expect(urls).toEqual([cover, inBody, portrait].map((relative) => `http://localhost:${port}${relative}`));
    const answers = await Promise.all(urls.map(async (url) => (await fetch(url)).status));
    expect(answers).toEqual([200, 200, 200]);
  });

  // A post of the import edited through the API keeps its revisions as the writes left it: its body
  // and cover as stored, relative. An export and the revisions' reads give them absolute, as the post's.
  it("exports revisions, and reads them, with absolute references", async () => {
    const ws = await app.workspace("revisions");
    const summary = await importGhostAsCli(app, ws, { imageBase: host.url(""), scratch: folder });
    expect(summary.failures).toEqual([]);
    const stored = await app.db.prisma.post.findMany({
      where: {
        workspaceId: ws.id,
        OR: [{ coverImage: { startsWith: "/media/" } }, { content: { contains: `"/media/` } }],
      },
      select: { id: true, slug: true, coverImage: true },
    });
    expect(stored.length).toBeGreaterThan(0);
    for (const { id } of stored) {
      const edited = await app.request("PATCH", `/v1/posts/${id}`, {
        key: ws.privateKey,
        body: { title: `Edited ${id}` },
      });
      expect(edited.status).toBe(200);
    }

    const base = `http://localhost:${port}`;
    const archive = path.join(folder, "revisions.tar.gz");
    await exportToFile(
      { db: app.db, config: app.config, storage: app.mediaStorage },
      { ...ws, name: "revisions" },
      archive,
    );
    const slugs = new Set(stored.map((post) => post.slug));
    const revisions = (await archivedPosts(archive))
      .filter((post) => slugs.has(post.slug))
      .flatMap((post) => post.revisions.map((revision) => JSON.stringify(revision.snapshot)));
    expect(revisions.length).toBeGreaterThanOrEqual(stored.length);
    const exported = revisions.flatMap(referenceBases);
    expect(exported.length).toBeGreaterThan(0);
    expect(new Set(exported)).toEqual(new Set([base]));

    const read = await app.request("GET", `/v1/posts/${stored[0]?.id}/revisions`, { key: ws.privateKey });
    expect(read.status).toBe(200);
    const served = referenceBases(JSON.stringify(read.body.revisions));
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served)).toEqual(new Set([base]));

    // A comparison of two revisions shows a changed cover's old value: absolute, as its snapshot reads.
    const withCover = stored.find((row) => row.coverImage?.startsWith("/media/"))?.id as string;
    const again = await app.request("PATCH", `/v1/posts/${withCover}`, {
      key: ws.privateKey,
      body: { coverImage: null },
    });
    expect(again.status).toBe(200);
    const numbers = (
      await app.request("GET", `/v1/posts/${stored[0]?.id}/revisions`, { key: ws.privateKey })
    ).body.revisions
      .map((revision: { number: number }) => revision.number)
      .sort((a: number, b: number) => b - a);
    const compared = await app.request(
      "GET",
      `/v1/posts/${withCover}/revisions/${numbers[0]}?compare=${numbers[1]}`,
      { key: ws.privateKey },
    );
    expect(compared.status).toBe(200);
    const inComparison = referenceBases(JSON.stringify(compared.body));
    expect(inComparison.length).toBeGreaterThan(0);
    expect(new Set(inComparison)).toEqual(new Set([base]));
  });
});
