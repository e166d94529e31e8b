// The CLI while `npm start` runs on the embedded database, which the server holds exclusively: the
// command runs in the server, over the control socket in the data folder, so it succeeds (instead of
// "in use by process …") and its writes reach the server's caches at once.
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";

const run = promisify(execFile);

describe.runIf(storageMode === "embedded")("CLI beside a running server on the embedded database", () => {
  const group = instanceGroup("cli-server");
  let server: Instance;

  async function cli(
    ...args: string[]
  ): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
    const started = performance.now();
    const env = { ...process.env, DATA_DIR: group.dataDir, LOG_LEVEL: "silent" };
    try {
      const { stdout, stderr } = await run(process.execPath, ["bin/content-gateway.mjs", ...args], { env });
      return { code: 0, stdout, stderr, ms: performance.now() - started };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { ...failed, ms: performance.now() - started };
    }
  }

  const listPosts = (key: string) =>
    fetch(`${server.url}/v1/posts`, { headers: { authorization: key } }).then((res) => res.status);

  beforeAll(async () => {
    server = await group.start();
  }, 90_000);

  afterAll(() => group.stop(), 30_000);

  it("serves the CLI on a socket in the data folder that only its owner may open", () => {
    const socket = statSync(path.join(group.dataDir, "cli.sock"));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
  });

  it("key list succeeds while the server runs and lists the default workspace's two keys", async () => {
    const { code, stdout, stderr, ms } = await cli("key", "list", "--workspace", "default");
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const { keys } = JSON.parse(stdout);
    expect(keys.map((key: { kind: string }) => key.kind).sort()).toEqual(["private", "public"]);
    expect(stdout).not.toMatch(/[ps]k_[A-Za-z0-9_-]{32}/);
    console.info(`key list beside the server: ${Math.round(ms)} ms`);
  });

  it("a key created through the CLI works against the server at once, and a revoked one is refused at once", async () => {
    const created = await cli("key", "create", "--workspace", "default", "--kind", "public");
    expect(created.code).toBe(0);
    const { key, apiKey } = JSON.parse(created.stdout);
    expect(await listPosts(key)).toBe(200);

    const revoked = await cli("key", "revoke", apiKey.id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).apiKey.revokedAt).toEqual(expect.any(String));
    expect(await listPosts(key)).toBe(401);
  });

  it("passes the server's errors back with the CLI's exit codes", async () => {
    const missing = await cli("key", "list", "--workspace", "nope");
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr.trim()).toBe('No workspace with id or slug "nope"');
    const usage = await cli("workspace", "create", "   ");
    expect(usage.code).toBe(2);
  });

  it("removes its socket when it stops, and the CLI then opens the data folder itself", async () => {
    server.process.kill("SIGTERM");
    await new Promise((resolve) => server.process.once("exit", resolve));
    expect(existsSync(path.join(group.dataDir, "cli.sock"))).toBe(false);
    const { code, stdout } = await cli("workspace", "list");
    expect(code).toBe(0);
    expect(JSON.parse(stdout).workspaces).toEqual([expect.objectContaining({ slug: "default" })]);
  }, 60_000);
});
