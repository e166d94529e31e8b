// The /v1 importer (--from marble): another instance's workspace, read page by page through its API with
// a key, imported into a second workspace of the same database. With a private key everything the API
// shows comes over (drafts, scheduled posts, revisions, fields, the media library with its bytes): every
// GET of the new workspace equals the source's but for ids, media hosts and creation times. A public key
// brings published posts only; a second run changes nothing; a wrong key fails before anything is written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImportSourceError } from "../../src/domain/errors.ts";
import { importInto, type TransferContext } from "../../src/transfer/transfer-commands.ts";
import { freePort } from "../helpers/free-port.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { apiSnapshot } from "./helpers/api-snapshot.ts";
import { seedEveryKind } from "./helpers/seed-every-kind.ts";

let app: TestApp;
let source: TestWorkspace;
const context = (): TransferContext => ({ db: app.db, config: app.config, storage: app.mediaStorage });
const importFrom = (into: TestWorkspace, key: string, options: { dryRun?: boolean } = {}) =>
  importInto(
    context(),
    { ...into, name: "Imported" },
    { from: "marble", location: `${app.url}/v1`, key },
    { dryRun: options.dryRun ?? false, webhooks: true },
  );
/** Without webhooks, which a /v1 API does not give (their secrets cannot be read). */
const contentOf = async (ws: TestWorkspace) => {
  const { "/v1/webhooks": _webhooks, ...content } = await apiSnapshot(app, ws.privateKey);
  return content;
};

beforeAll(async () => {
  // The source's media must be fetchable: its public URL is its own loopback address.
  const port = await freePort();
  app = await startTestApp({
    port,
    env: { PUBLIC_URL: `http://127.0.0.1:${port}`, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
  });
  source = await app.workspace("Source");
  await seedEveryKind(app, source, "http://127.0.0.1:9");
}, 120_000);
afterAll(() => app?.close());

describe("import --from marble (a /v1 API)", () => {
  it("--dry-run reports what would come over and writes nothing", async () => {
    const into = await app.workspace("Dry run");
    const summary = await importFrom(into, source.privateKey, { dryRun: true });
    expect(summary.dryRun).toBe(true);
    expect(summary.byKind.post?.created).toBe(3);
    expect(summary.byKind.media?.created).toBe(1);
    expect((await app.request("GET", "/v1/posts?status=all", { key: into.privateKey })).body.posts).toEqual(
      [],
    );
  });

  it("with a private key: every GET of the new workspace equals the source's but for ids, hosts, creation times", async () => {
    const into = await app.workspace("Private copy");
    const summary = await importFrom(into, source.privateKey);
    expect(summary.totals).toMatchObject({ conflict: 0, failed: 0 });
    expect(summary.totals.created).toBe(12);
    expect(summary.mediaBytes).toBeGreaterThan(0);
    expect(await contentOf(into)).toEqual(await contentOf(source));
    // The cover now points at the new workspace's copy of the bytes.
    const { post } = (await app.request("GET", "/v1/posts/published-post", { key: into.privateKey })).body;
    expect(post.coverImage).toContain(`/media/${into.id}/`);
    const cover = await fetch(post.coverImage);
    expect(cover.status).toBe(200);
    expect(cover.headers.get("content-type")).toBe("image/png");

    const again = await importFrom(into, source.privateKey);
    expect(again.totals).toMatchObject({ created: 0, updated: 0, conflict: 0, failed: 0 });
    expect(await contentOf(into)).toEqual(await contentOf(source));
  });

  it("with a public key: the published posts only, with what they reference", async () => {
    const into = await app.workspace("Public copy");
    const summary = await importFrom(into, source.publicKey);
    expect(summary.totals).toMatchObject({ conflict: 0, failed: 0 });
    const mine = (await app.request("GET", "/v1/posts?status=all", { key: into.privateKey })).body.posts;
    const published = (await app.request("GET", "/v1/posts", { key: source.publicKey })).body.posts;
    expect(mine.map((post: { slug: string }) => post.slug)).toEqual(
      published.map((post: { slug: string }) => post.slug),
    );
    expect(mine.every((post: { status: string }) => post.status === "published")).toBe(true);
  });

  it("a wrong key or a URL that is no /v1 API fails before anything is written", async () => {
    const into = await app.workspace("Refused");
    await expect(importFrom(into, "sk_not-a-key")).rejects.toThrow(ImportSourceError);
    await expect(importFrom(into, "sk_not-a-key")).rejects.toThrow(/HTTP 401/);
    await expect(
      importInto(
        context(),
        { ...into, name: "Refused" },
        { from: "marble", location: "not a url", key: source.privateKey },
        { dryRun: false, webhooks: true },
      ),
    ).rejects.toThrow(/needs the API's URL/);
    expect((await app.request("GET", "/v1/categories", { key: into.privateKey })).body.categories).toEqual(
      [],
    );
  });
});
