// Issue 54, item 10: the same export imported again from another file name turned every record into a
// conflict and fetched every media file again (8 → 16). An import is now named by its source's own
// identity (a WordPress site's URL; Ghost's uuids and ObjectIds), not by the file's name: a copy of the
// same real export changes nothing and stores no media file twice.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceKind } from "../../src/transfer/sources/source-types.ts";
import { importInto } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import { ghost29WithImagesAt, REAL } from "./helpers/real-corpus.ts";
import { type TestHost, testHost } from "./helpers/remote-hosts.ts";

describe("the same real export imported again under another file name", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "same-export-"));
  let app: TestApp;
  let host: TestHost;
  let base: string;
  beforeAll(async () => {
    const image = await makeImage("png");
    host = await testHost((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(image));
    base = host.url("");
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await host?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  async function importTwice(from: SourceKind, first: string, remoteMedia: boolean) {
    const second = path.join(folder, `renamed-${path.basename(first)}`);
    copyFileSync(first, second);
    const ws = await app.workspace(`twice-${from}`);
    const run = (location: string) =>
      importInto(
        { db: app.db, config: app.config, storage: app.mediaStorage },
        { ...ws, name: "twice" },
        { from, location },
        { dryRun: false, webhooks: false, remoteMedia },
      );
    const media = async () =>
      ((await app.request("GET", "/v1/media?limit=100", { key: ws.privateKey })).body.media as unknown[])
        .length;
    const once = await run(first);
    const mediaOnce = await media();
    const again = await run(second);
    return { once, again, mediaOnce, mediaAgain: await media() };
  }

  it("Ghost 2.9, its images fetched: every record skipped, no media file stored twice", async () => {
    const file = ghost29WithImagesAt(base, folder);
    const { once, again, mediaOnce, mediaAgain } = await importTwice("ghost", file, true);
    expect(once.failures).toEqual([]);
    expect(mediaOnce).toBeGreaterThan(0);
    // The test host answers the same bytes at every URL: the first run stores one file and skips the
    // other media records as the same file; the second skips every record.
    expect(again.totals).toEqual({
      ...once.totals,
      created: 0,
      skipped: once.totals.created + once.totals.skipped,
    });
    expect(mediaAgain).toBe(mediaOnce);
  });

  it("WordPress.com's theme unit test: every record skipped", async () => {
    const { once, again } = await importTwice(
      "wxr",
      path.join(REAL, "wordpress/theme-unit-test-data.xml"),
      false,
    );
    expect(once.failures).toEqual([]);
    expect(again.totals).toEqual({ ...once.totals, created: 0, skipped: once.totals.created });
    expect(again.leftOut).toEqual(once.leftOut);
  });
});
