// Issue 54, item 9's setting: a server without PUBLIC_URL listening on a port of its own, into whose
// store the CLI imports with its own configuration (the same data folder, PORT unset: 3000), and how a
// test finds the references to stored files in what the server answers.
import { mkdtempSync } from "node:fs";
import path from "node:path";
import { silentLogger } from "../../../src/logger.ts";
import { createMediaStorage } from "../../../src/media/create-storage.ts";
import { type ImportFlags, importInto } from "../../../src/transfer/transfer-commands.ts";
import type { TestApp, TestWorkspace } from "../../helpers/test-app.ts";
import { ghost29WithImagesAt } from "./real-corpus.ts";

/** Every reference to a stored file in serialized JSON; group 1 is its base ("" when relative). */
export const STORED_FILE = /([^"\\\s=,(]*)\/media\/[A-Za-z0-9_-]{1,64}\/[0-9a-f]{32}\.[a-z0-9]{1,5}/g;

/** The base of every reference to a stored file in `json`, in order ("" for a relative one). */
export const referenceBases = (json: string): string[] =>
  [...json.matchAll(STORED_FILE)].map((match) => match[1] ?? "");

/**
 * The real Ghost 2.9 export, its images at `imageBase`, imported into `ws` of `app` as the CLI does
 * (its own configuration: no PUBLIC_URL, port 3000); `scratch` is a folder for the export's copy.
 */
export function importGhostAsCli(
  app: TestApp,
  ws: TestWorkspace,
  { imageBase, scratch }: { imageBase: string; scratch: string },
  flags: Partial<ImportFlags> = {},
): ReturnType<typeof importInto> {
  const cli = { ...app.config, port: 3000, publicUrl: undefined };
  return importInto(
    { db: app.db, config: cli, storage: createMediaStorage(cli, silentLogger) },
    { ...ws, name: ws.slug },
    { from: "ghost", location: ghost29WithImagesAt(imageBase, mkdtempSync(path.join(scratch, "ghost-"))) },
    { dryRun: false, webhooks: false, ...flags },
  );
}
