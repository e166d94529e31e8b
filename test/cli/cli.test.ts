// The CLI as a user runs it: a separate process printing one JSON object on stdout, against whatever
// database the configuration names (a temp embedded directory, or a PostgreSQL schema in CI's run).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.ts";
import { runCli } from "../helpers/cli.ts";
import { storageMode } from "../helpers/test-database.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "content-cli-"));
const schema = `test_cli_${randomBytes(4).toString("hex")}`;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: "silent",
  ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
};

const cli = (...args: string[]) => runCli(env, ...args);

describe(`CLI (${storageMode})`, () => {
  let workspace: { id: string; slug: string };

  beforeAll(async () => {
    const created = await cli("workspace", "create", "Field Notes");
    expect(created.code).toBe(0);
    workspace = created.json.workspace;
  }, 60_000);

  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (process.env.DATABASE_URL) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });

  it("workspace create prints the workspace and its two keys as one JSON object", async () => {
    const { code, json, stdout } = await cli("workspace", "create", "Second Site");
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(["workspace", "publicKey", "privateKey"]);
    expect(json).toEqual({
      workspace: { id: expect.any(String), name: "Second Site", slug: "second-site" },
      publicKey: expect.stringMatching(/^pk_[A-Za-z0-9_-]{32}$/),
      privateKey: expect.stringMatching(/^sk_[A-Za-z0-9_-]{32}$/),
    });
    expect(stdout.trim().startsWith("{")).toBe(true);
  });

  it("workspace list includes created workspaces", async () => {
    const { json } = await cli("workspace", "list");
    expect(json.workspaces).toEqual(
      expect.arrayContaining([{ id: workspace.id, name: "Field Notes", slug: "field-notes" }]),
    );
  });

  it("key create, key list and key revoke manage keys by workspace id or slug", async () => {
    const created = await cli("key", "create", "--workspace", workspace.slug, "--kind", "public");
    expect(created.json).toEqual({
      key: expect.stringMatching(/^pk_/),
      apiKey: {
        id: expect.any(String),
        workspaceId: workspace.id,
        kind: "public",
        displayHint: expect.any(String),
        createdAt: expect.any(String),
        revokedAt: null,
      },
    });
    const revoked = await cli("key", "revoke", created.json.apiKey.id);
    expect(revoked.json.apiKey.revokedAt).toEqual(expect.any(String));
    const listed = await cli("key", "list", "--workspace", workspace.id);
    expect(listed.json.keys).toHaveLength(3);
    expect(listed.stdout).not.toContain(created.json.key);
  });

  it("seed fills a workspace with demo content", async () => {
    const { code, json } = await cli("seed", "--workspace", workspace.slug);
    expect(code).toBe(0);
    expect(json.seeded).toEqual({ categories: 6, tags: 15, authors: 5, fields: 3, posts: 36 });
  });

  it("bad usage exits 2 with what was wrong; a failed command exits 1 with a clear message", async () => {
    const badKind = await cli("key", "create", "--workspace", workspace.slug, "--kind", "admin");
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toContain("Allowed choices are public, private");
    const noWorkspace = await cli("key", "list");
    expect(noWorkspace.code).toBe(2);
    expect(noWorkspace.stderr).toContain("required option '-w, --workspace <id|slug>' not specified");
    const unknown = await cli("workspaces");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'workspaces'");
    const missing = await cli("key", "list", "--workspace", "nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No workspace with id or slug "nope"');
  });

  it("--help works for the program and every command, and exits 0", async () => {
    const commands = [
      [],
      ["workspace"],
      ["workspace", "create"],
      ["workspace", "list"],
      ["key"],
      ["key", "create"],
      ["key", "list"],
      ["key", "revoke"],
      ["seed"],
      ["migrate"],
    ];
    for (const command of commands) {
      const help = await cli(...command, "--help");
      expect(help.code, command.join(" ")).toBe(0);
      expect(help.stdout).toContain(`Usage: content-gateway ${command.join(" ")}`.trim());
    }
    expect((await cli("key", "create", "--help")).stdout).toContain("--kind <kind>");
  });

  it.runIf(storageMode === "embedded")(
    "refuses an embedded data directory that a running server holds",
    async () => {
      const held = await openDatabase({ kind: "embedded", dir: path.join(dataDir, "db") });
      try {
        const { code, stderr } = await cli("workspace", "list");
        expect(code).toBe(1);
        expect(stderr).toContain(`is in use by process ${process.pid}`);
      } finally {
        await held.close();
      }
      expect((await cli("workspace", "list")).code).toBe(0);
    },
  );
});
