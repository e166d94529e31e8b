// What every importer test needs: an app with a workspace, a media server on 127.0.0.1 that serves the
// images the fixtures reference (as {{MEDIA}}/cover.png), the fixture copied with that address filled
// in, and the import command's function to run against it.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SourceKind } from "../../../src/transfer/sources/import-source.ts";
import { importInto } from "../../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../../helpers/test-app.ts";
import { makeImage } from "../../media/helpers/make-files.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");

export interface ImporterFixture {
  app: TestApp;
  ws: TestWorkspace;
  mediaBase: string;
  /** The fixture's copy the import reads (a test may alter it first). */
  location: string;
  /** The import command, as `content-gateway import <fixture> --from <kind> [--dry-run]` runs it. */
  run(options?: { dryRun?: boolean }): ReturnType<typeof importInto>;
  /** A GET with the workspace's private key: its body (a failure throws). */
  get(path: string): Promise<Awaited<ReturnType<TestApp["request"]>>["body"]>;
  close(): Promise<void>;
}

function fillIn(target: string, mediaBase: string): void {
  if (statSync(target).isDirectory()) {
    for (const name of readdirSync(target)) fillIn(path.join(target, name), mediaBase);
    return;
  }
  writeFileSync(target, readFileSync(target, "utf8").replaceAll("{{MEDIA}}", mediaBase));
}

/**
 * `env` is the app's: by default private targets are allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS), or the
 * import could not fetch the fixture's media from the test's own server on 127.0.0.1.
 */
export async function importerFixture(
  from: SourceKind,
  fixture: string,
  { env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } }: { env?: Record<string, string> } = {},
): Promise<ImporterFixture> {
  const image = await makeImage("png");
  const server: Server = await new Promise((resolve) => {
    const s = createServer((req, res) => {
      if (req.url === "/cover.png") res.writeHead(200, { "content-type": "image/png" }).end(image);
      else res.writeHead(404).end();
    }).listen(0, "127.0.0.1", () => resolve(s));
  });
  const mediaBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const folder = mkdtempSync(path.join(tmpdir(), "importer-"));
  const copy = path.join(folder, fixture);
  cpSync(path.join(FIXTURES, fixture), copy, { recursive: true });
  fillIn(copy, mediaBase);
  const app = await startTestApp({ env });
  const ws = await app.workspace("Imported");
  return {
    app,
    ws,
    mediaBase,
    location: copy,
    run: (options = {}) =>
      importInto(
        { db: app.db, config: app.config, storage: app.mediaStorage },
        { ...ws, name: "Imported" },
        { from, location: copy },
        { dryRun: options.dryRun ?? false, webhooks: true },
      ),
    async get(requestPath) {
      const res = await app.request("GET", requestPath, { key: ws.privateKey });
      if (res.status !== 200)
        throw new Error(`GET ${requestPath}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async close() {
      await app.close();
      await new Promise((resolve) => server.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
