// Issue 54, item 12: `import export.xml` without --from read the WordPress file as an archive and
// answered "Error: incorrect header check" with a Node stack trace. Without --from the source's kind is
// now told from its content; with a --from that does not fit, the error names the one that does.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceKind } from "../../src/transfer/sources/source-types.ts";
import { importInto } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { dropTestSchema, storageMode } from "../helpers/test-database.ts";
import { REAL } from "./helpers/real-corpus.ts";

const WXR = path.join(REAL, "wordpress/valid-wxr-1.1.xml");
const GHOST = path.join(REAL, "ghost/default-export-2.9.json");
const HUGO = path.join(REAL, "hugo");

describe("import without --from, or with the wrong one", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  }, 60_000);
  afterAll(async () => app?.close());

  const dryRun = async (location: string, from?: SourceKind) => {
    const ws = await app.workspace("detected");
    return importInto(
      { db: app.db, config: app.config, storage: app.mediaStorage },
      { ...ws, name: "detected" },
      { ...(from ? { from } : {}), location },
      { dryRun: true, webhooks: false, remoteMedia: false },
    );
  };
  const refusal = (location: string, from: SourceKind) =>
    dryRun(location, from).then(
      () => "imported",
      (error: Error) => `${error.name}: ${error.message.replace(location, path.basename(location))}`,
    );

  it("reads a WordPress export, a Ghost export and a markdown folder without --from", async () => {
    const wxr = await dryRun(WXR);
    expect(wxr.origin).toMatch(/^wxr:/);
    expect(wxr.byKind.post?.created).toBe(1);
    const ghost = await dryRun(GHOST);
    expect(ghost.origin).toBe("ghost");
    expect(ghost.byKind.post?.created).toBe(7);
    const hugo = await dryRun(HUGO);
    expect(hugo.origin).toBe(`markdown:${HUGO}`);
  });

  it("names the --from that fits when the one given does not", async () => {
    expect(await refusal(WXR, "archive")).toBe(
      "ImportSourceError: valid-wxr-1.1.xml is a WordPress WXR export, not a portable archive (content-gateway export): use --from wxr",
    );
    expect(await refusal(WXR, "ghost")).toBe(
      "ImportSourceError: valid-wxr-1.1.xml is a WordPress WXR export, not a Ghost JSON export: use --from wxr",
    );
    expect(await refusal(GHOST, "wxr")).toBe(
      "ImportSourceError: default-export-2.9.json is a Ghost JSON export, not a WordPress WXR export: use --from ghost",
    );
    expect(await refusal(HUGO, "ghost")).toBe(
      "ImportSourceError: hugo is a folder of markdown files, not a Ghost JSON export: use --from markdown",
    );
  });

  it("says it cannot tell what a file is when its content is no source", async () => {
    const readme = path.join(REAL, "README.md");
    const ws = await app.workspace("unknown");
    await expect(
      importInto(
        { db: app.db, config: app.config, storage: app.mediaStorage },
        { ...ws, name: "unknown" },
        { location: readme },
        { dryRun: true, webhooks: false },
      ),
    ).rejects.toThrow(
      `cannot tell what ${readme} is: name it with --from (archive, ghost, wxr, markdown or marble)`,
    );
  });
});

describe(`the CLI given a WordPress export with the wrong --from (${storageMode})`, () => {
  const run = promisify(execFile);
  const dataDir = mkdtempSync(path.join(tmpdir(), "content-detect-"));
  const schema = `test_detect_${randomBytes(4).toString("hex")}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
  };
  const cli = (...args: string[]) =>
    run(process.execPath, ["bin/content-gateway.mjs", ...args], { env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await dropTestSchema(schema);
  });

  it("exits 1 with one line that names --from wxr, and no stack trace", async () => {
    const created = await cli("workspace", "create", "Detected");
    expect(created.code).toBe(0);
    const { slug } = JSON.parse(created.stdout).workspace;
    const wrong = await cli("import", WXR, "--from", "archive", "--workspace", slug, "--no-remote-media");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe(
      `${WXR} is a WordPress WXR export, not a portable archive (content-gateway export): use --from wxr`,
    );
    const detected = await cli("import", WXR, "--workspace", slug, "--no-remote-media");
    expect(detected.code).toBe(0);
    expect(JSON.parse(detected.stdout)).toMatchObject({
      origin: expect.stringMatching(/^wxr:/),
      totals: { created: expect.any(Number), failed: 0 },
    });
  }, 240_000);
});
