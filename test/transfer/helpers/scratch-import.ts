// What a test needs that writes its own source (a WXR file, a folder of markdown) and imports it as the
// CLI does: an app on this test's store, a scratch folder for the source, both removed after the tests
// of the `describe` it is called in, and the import command's function (a real run, no webhook sent;
// `flags` changes that). For a fixture of test/transfer/fixtures with media to serve, importer-fixture.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { SourceRequest } from "../../../src/transfer/sources/import-source.ts";
import { type ImportFlags, importInto } from "../../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../../helpers/test-app.ts";

export interface ScratchImport {
  /** The app, once the `describe`'s beforeAll has started it. */
  readonly app: TestApp;
  /** The scratch folder: a source written there is removed with it. */
  readonly folder: string;
  /** Writes `text` to `name` in the folder; answers its path. */
  write(name: string, text: string): string;
  /** `content-gateway import <location> --from <from> --workspace <ws>` against the app's store. */
  run(ws: TestWorkspace, request: SourceRequest, flags?: Partial<ImportFlags>): ReturnType<typeof importInto>;
}

/** Call inside a `describe`: it registers the hooks that start and remove what it gives. */
export function scratchImport(prefix: string): ScratchImport {
  const folder = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp();
  }, 60_000);
  afterAll(async () => {
    await started?.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const app = () => {
    if (!started) throw new Error("scratchImport: the app starts in beforeAll; use it inside a test");
    return started;
  };
  return {
    get app() {
      return app();
    },
    folder,
    write(name, text) {
      const file = path.join(folder, name);
      writeFileSync(file, text);
      return file;
    },
    run(ws, request, flags = {}) {
      const { db, config, mediaStorage } = app();
      return importInto({ db, config, storage: mediaStorage }, { ...ws, name: ws.slug }, request, {
        dryRun: false,
        webhooks: false,
        ...flags,
      });
    },
  };
}
