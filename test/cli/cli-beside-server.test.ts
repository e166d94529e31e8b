// The CLI while `npm start` runs on the embedded database, which the server holds exclusively: the
// command runs in the server, over the control socket in the data folder, and what it does is seen
// by the server at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";

describe.runIf(storageMode === "embedded")("CLI beside a running server (embedded database)", () => {
  const group = instanceGroup("cli-beside");
  const env = { ...process.env, DATABASE_URL: "", DATA_DIR: group.dataDir, LOG_LEVEL: "silent" };
  const cli = (...args: string[]) => runCli(env, ...args);
  let server: Instance;
  beforeAll(async () => {
    server = await group.start({ DATABASE_URL: "", REDIS_URL: "" });
  }, 90_000);
  afterAll(() => group.stop());

  it("key list --workspace default succeeds while the server runs", async () => {
    const listed = await cli("key", "list", "--workspace", "default");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json.keys.map((key: { kind: string }) => key.kind).sort()).toEqual(["private", "public"]);
  });

  it("a key issued through the CLI works against the server at once; revoked, it is refused at once", async () => {
    const created = await cli("key", "create", "--workspace", "default", "--kind", "public");
    expect(created.code, created.stderr).toBe(0);
    const read = await fetch(`${server.url}/v1/posts`, { headers: { authorization: created.json.key } });
    expect(read.status).toBe(200);
    const revoked = await cli("key", "revoke", created.json.apiKey.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await fetch(`${server.url}/v1/posts`, { headers: { authorization: created.json.key } });
    expect(refused.status).toBe(401);
  });

  it("workspace create and a failing command answer as they do without a server", async () => {
    const created = await cli("workspace", "create", "Made Beside");
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.workspace.slug).toBe("made-beside");
    expect((await cli("workspace", "list")).json.workspaces).toContainEqual(created.json.workspace);
    const missing = await cli("key", "list", "--workspace", "nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No workspace with id or slug "nope"');
  });
});
