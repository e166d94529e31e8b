// The /v1 source's key of `import --from marble` need not be in argv, where every user of the machine
// sees it in the process list: `--key-file <file>` reads it from a file, IMPORT_SOURCE_KEY from the
// environment; `--key` still works and wins over the variable. The source is a server on 127.0.0.1 that
// records the key it is sent and answers every list empty.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropTestSchema, storageMode } from "../helpers/test-database.ts";
import { type TestHost, testHost } from "../transfer/helpers/remote-hosts.ts";

const run = promisify(execFile);
/** Each command opens the database itself (no server runs): seconds each on a busy machine. */
const STANDALONE_TIMEOUT_MS = 120_000;
const dataDir = mkdtempSync(path.join(tmpdir(), "content-cli-key-"));
const schema = `test_cli_key_${randomBytes(4).toString("hex")}`;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: "silent",
  // The source is the test's own server on loopback.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
};
delete env.IMPORT_SOURCE_KEY;

async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ["bin/content-gateway.mjs", ...args], {
      env: { ...env, ...extraEnv },
      cwd: process.cwd(),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let source: TestHost;
/** The bearer keys the source was sent, in order. */
const keysSent: string[] = [];
let workspace: string;

beforeAll(async () => {
  source = await testHost((req, res) => {
    keysSent.push(req.headers.authorization ?? "");
    const url = new URL(req.url ?? "/", "http://source");
    const member = url.pathname.split("/").pop() ?? "";
    if (["fields", "media"].includes(member) || url.searchParams.get("status") === "all")
      return res.writeHead(404).end();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ [member]: [], pagination: { nextPage: null } }));
  });
  const created = await cli(["workspace", "create", "Key Source"]);
  expect(created.code).toBe(0);
  workspace = JSON.parse(created.stdout).workspace.slug;
}, STANDALONE_TIMEOUT_MS);

afterAll(async () => {
  await source?.close();
  rmSync(dataDir, { recursive: true, force: true });
  await dropTestSchema(schema);
});

const importArgs = () => ["import", source.url("/v1"), "--from", "marble", "--workspace", workspace];

describe(`import --from marble: where its key comes from (${storageMode})`, () => {
  it(
    "--key-file <file>: the file's first line",
    async () => {
      const file = path.join(dataDir, "source-key");
      writeFileSync(file, "sk_from-a-file\n", { mode: 0o600 });
      keysSent.length = 0;
      const result = await cli([...importArgs(), "--key-file", file]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(new Set(keysSent)).toEqual(new Set(["Bearer sk_from-a-file"]));
    },
    STANDALONE_TIMEOUT_MS,
  );

  it(
    "IMPORT_SOURCE_KEY when the command line names none; --key wins over it",
    async () => {
      keysSent.length = 0;
      const fromEnv = await cli(importArgs(), { IMPORT_SOURCE_KEY: "sk_from-the-environment" });
      expect(fromEnv.code).toBe(0);
      expect(new Set(keysSent)).toEqual(new Set(["Bearer sk_from-the-environment"]));
      keysSent.length = 0;
      const fromArgv = await cli([...importArgs(), "--key", "sk_from-argv"], {
        IMPORT_SOURCE_KEY: "sk_from-the-environment",
      });
      expect(fromArgv.code).toBe(0);
      expect(new Set(keysSent)).toEqual(new Set(["Bearer sk_from-argv"]));
    },
    STANDALONE_TIMEOUT_MS,
  );

  it("--key with --key-file, or a key file that cannot be read, is bad usage (exit 2)", async () => {
    const both = await cli([
      ...importArgs(),
      "--key",
      "sk_a",
      "--key-file",
      path.join(dataDir, "source-key"),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("cannot be used with");
    const missing = await cli([...importArgs(), "--key-file", path.join(dataDir, "no-such-file")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no-such-file");
  });
});
