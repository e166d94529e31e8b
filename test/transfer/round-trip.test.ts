// Export a workspace with every kind of record, import it into an empty workspace on the OTHER store
// (the source is always the embedded database; the target is PostgreSQL in CI's PostgreSQL run, a second
// embedded database otherwise): every GET /v1/… of the new workspace equals the old one's except ids,
// the media host's URLs and creation timestamps. A second import changes nothing.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.ts";
import { exportToFile, importInto, type TransferContext } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { storageMode } from "../helpers/test-database.ts";
import { apiSnapshot } from "./helpers/api-snapshot.ts";
import { seedEveryKind } from "./helpers/seed-every-kind.ts";

const context = (app: TestApp): TransferContext => ({
  db: app.db,
  config: app.config,
  storage: app.mediaStorage,
});

describe(`export → import round trip (embedded → ${storageMode === "postgres" ? "PostgreSQL" : "embedded"})`, () => {
  let source: TestApp;
  let target: TestApp;
  let from: TestWorkspace;
  let into: TestWorkspace;
  const folder = mkdtempSync(path.join(tmpdir(), "round-trip-"));
  const archive = path.join(folder, "site.tar.gz");

  beforeAll(async () => {
    source = await startTestApp({
      database: () => openDatabase({ kind: "memory" }),
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", PUBLIC_URL: "http://source-media.test" },
    });
    // The source's webhook endpoint targets a loopback receiver: allowed on the target too, as on the source.
    target = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", PUBLIC_URL: "http://target-media.test" },
    });
    from = await source.workspace("Source");
    into = await target.workspace("Target");
    await seedEveryKind(source, from, "http://127.0.0.1:9");
  }, 120_000);

  afterAll(async () => {
    await source?.close();
    await target?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("exports every record kind with its counts in the manifest, and the media bytes", async () => {
    const summary = await exportToFile(context(source), { ...from, name: "Source" }, archive);
    expect(summary.counts).toEqual({
      locale: 1,
      category: 2,
      tag: 2,
      author: 2,
      field: 2,
      media: 1,
      post: 3,
      webhook: 1,
    });
    expect(summary.mediaBytes).toBeGreaterThan(0);
    expect(statSync(archive).size).toBeGreaterThan(summary.mediaBytes / 2);
  });

  it("imports into an empty workspace of the other store: every GET equals the source's but for ids, hosts, creation times", async () => {
    const summary = await importInto(
      context(target),
      { ...into, name: "Target" },
      { from: "archive", location: archive },
      { dryRun: false, webhooks: true },
    );
    // The source's one locale (en) is the target's own: skipped, remembered by the ledger.
    expect(summary.totals).toEqual({ created: 13, updated: 0, skipped: 1, conflict: 0, failed: 0 });
    const before = await apiSnapshot(source, from.privateKey);
    const after = await apiSnapshot(target, into.privateKey);
    expect(after).toEqual(before);
    // The media URLs point at the target's storage, not the source's.
    const post = await target.request("GET", "/v1/posts/published-post", { key: into.privateKey });
    expect(post.body.post.coverImage).toMatch(new RegExp(`^http://target-media\\.test/media/${into.id}/`));
    expect(post.body.post.content).toContain(`http://target-media.test/media/${into.id}/`);
    // Author images too (issue 54 item 13: authors were written before media, and kept the source's URL).
    const authors = await target.request("GET", "/v1/authors", { key: into.privateKey });
    const images = (authors.body.authors as { image: string | null }[]).flatMap((author) =>
      author.image ? [author.image] : [],
    );
    expect(images.length).toBeGreaterThan(0);
    for (const image of images)
      expect(image).toMatch(new RegExp(`^http://target-media\\.test/media/${into.id}/`));
  });

  it("a second run of the same import changes nothing", async () => {
    const before = await apiSnapshot(target, into.privateKey);
    const summary = await importInto(
      context(target),
      { ...into, name: "Target" },
      { from: "archive", location: archive },
      { dryRun: false, webhooks: true },
    );
    expect(summary.totals).toEqual({ created: 0, updated: 0, skipped: 14, conflict: 0, failed: 0 });
    expect(await apiSnapshot(target, into.privateKey)).toEqual(before);
  });
});
