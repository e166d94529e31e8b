// The CLI as a user runs it (`npx content-gateway …`: bin/content-gateway.mjs, the compiled CLI): a
// separate process printing one JSON object on stdout, against whatever database the configuration
// names (a temp embedded directory, or a PostgreSQL schema in CI's run). Exit codes: 0, 1 failed, 2 usage.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.ts";
import { dropTestSchema, storageMode } from "../helpers/test-database.ts";

const run = promisify(execFile);
/** Without a running server each command opens the database itself: seconds each on a busy machine. */
const STANDALONE_TIMEOUT_MS = 120_000;
const dataDir = mkdtempSync(path.join(tmpdir(), "content-cli-"));
const schema = `test_cli_${randomBytes(4).toString("hex")}`;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: "silent",
  ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
};

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["bin/content-gateway.mjs", ...args], {
      env,
      cwd: process.cwd(),
    });
    return { code: 0, stdout, stderr, json: stdout.trim().startsWith("{") ? JSON.parse(stdout) : null };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, json: null };
  }
}

describe(`CLI (${storageMode})`, () => {
  let workspace: { id: string; slug: string };

  beforeAll(async () => {
    const created = await cli("workspace", "create", "Field Notes");
    expect(created.code).toBe(0);
    workspace = created.json.workspace;
  }, STANDALONE_TIMEOUT_MS);

  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await dropTestSchema(schema);
  });

  it("workspace create prints the workspace and its two keys as one JSON object", async () => {
    const { code, json, stdout } = await cli("workspace", "create", "Second Site");
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(["workspace", "publicKey", "privateKey", "locale"]);
    expect(json).toEqual({
      workspace: { id: expect.any(String), name: "Second Site", slug: "second-site" },
      publicKey: expect.stringMatching(/^pk_[0-9A-Za-z]{36}$/),
      privateKey: expect.stringMatching(/^sk_[0-9A-Za-z]{36}$/),
      locale: { code: "en", name: "English" },
    });
    expect(stdout.trim().startsWith("{")).toBe(true);
  });

  it(
    "workspace create --locale starts the workspace with that locale; locale add, set, list and remove manage them",
    async () => {
      const created = await cli("workspace", "create", "Atlas", "--locale", "de-de");
      expect(created.code).toBe(0);
      expect(created.json.locale).toEqual({ code: "de-DE", name: "German (Germany)" });
      const slug = created.json.workspace.slug as string;

      const added = await cli("locale", "add", "EN", "--workspace", slug, "--fallback", "de-DE");
      expect(added.code, added.stderr).toBe(0);
      expect(added.json).toEqual({
        workspace: created.json.workspace,
        locales: [
          { code: "de-DE", name: "German (Germany)", isDefault: true, fallback: [] },
          { code: "en", name: "English", isDefault: false, fallback: ["de-DE"] },
        ],
        slugsUniqueAcrossLocales: false,
      });
      // A cycle is the user's to fix: exit 2, naming the field and the cycle.
      const cycle = await cli("locale", "set", "de-DE", "--workspace", slug, "--fallback", "en");
      expect(cycle.code).toBe(2);
      expect(cycle.stderr.trim()).toBe(
        "The fallback chain would make a cycle: de-DE → en → de-DE (fallback: Makes a cycle: de-DE → en → de-DE)",
      );
      const switched = await cli(
        "locale",
        "set",
        "en",
        "--workspace",
        slug,
        "--default",
        "--fallback",
        "none",
      );
      expect(
        switched.json.locales.map((l: { code: string; isDefault: boolean }) => [l.code, l.isDefault]),
      ).toEqual([
        ["en", true],
        ["de-DE", false],
      ]);
      const removed = await cli("locale", "remove", "de-de", "--workspace", slug);
      expect(removed.code, removed.stderr).toBe(0);
      const listed = await cli("locale", "list", "--workspace", slug);
      expect(listed.json.locales).toEqual([{ code: "en", name: "English", isDefault: true, fallback: [] }]);
      // The default cannot go (exit 1, the reason on stderr, no stack); a malformed code is bad usage.
      const refused = await cli("locale", "remove", "en", "--workspace", slug);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(
        `Locale "en" is the workspace's default; make another locale the default first`,
      );
      const malformed = await cli("workspace", "create", "Nowhere", "--locale", "en_US!");
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toContain('"en_US!" is not a valid locale code');
    },
    STANDALONE_TIMEOUT_MS,
  );

  it("workspace list includes created workspaces", async () => {
    const { json } = await cli("workspace", "list");
    expect(json.workspaces).toEqual(
      expect.arrayContaining([{ id: workspace.id, name: "Field Notes", slug: "field-notes" }]),
    );
  });

  it(
    "key create, key list, key rotate and key revoke manage keys by workspace id or slug",
    async () => {
      const created = await cli("key", "create", "--workspace", workspace.slug, "--kind", "public");
      expect(created.json).toEqual({
        key: expect.stringMatching(/^pk_/),
        apiKey: {
          id: expect.any(String),
          workspaceId: workspace.id,
          name: "",
          kind: "public",
          displayHint: expect.any(String),
          scopes: ["content:read"],
          allowedOrigins: [],
          allowedAddresses: [],
          createdAt: expect.any(String),
          expiresAt: null,
          lastUsedAt: null,
          lastUsedFrom: null,
          revokedAt: null,
          revokedReason: null,
          rotatedFromId: null,
          graceEndsAt: null,
        },
      });
      const revoked = await cli("key", "revoke", created.json.apiKey.id, "--reason", "test over");
      expect(revoked.json.apiKey).toMatchObject({
        revokedAt: expect.any(String),
        revokedReason: "test over",
      });
      const scoped = await cli(
        "key",
        "create",
        "--workspace",
        workspace.id,
        "--kind",
        "private",
        "--name",
        "build server",
        "--scope",
        "drafts:read",
        "posts:write",
        "--expires",
        "90d",
      );
      expect(scoped.json.apiKey).toMatchObject({
        name: "build server",
        scopes: ["content:read", "drafts:read", "posts:write"],
      });
      const in90Days = Date.now() + 90 * 86_400_000;
      expect(Math.abs(Date.parse(scoped.json.apiKey.expiresAt) - in90Days)).toBeLessThan(60_000);
      const rotated = await cli("key", "rotate", scoped.json.apiKey.id, "--grace", "1h");
      expect(rotated.json.apiKey).toMatchObject({
        rotatedFromId: scoped.json.apiKey.id,
        name: "build server",
      });
      expect(rotated.json.key).toMatch(/^sk_[0-9A-Za-z]{36}$/);
      const unknownScope = await cli(
        "key",
        "create",
        "--workspace",
        workspace.id,
        "--kind",
        "private",
        "--scope",
        "posts:delete",
      );
      expect(unknownScope.code).toBe(2);
      const listed = await cli("key", "list", "--workspace", workspace.id);
      expect(listed.json.keys).toHaveLength(5);
      expect(listed.stdout).not.toContain(created.json.key);
      expect(listed.stdout).not.toContain(rotated.json.key);
    },
    STANDALONE_TIMEOUT_MS,
  );

  it(
    "binds keys with --origin and --address, and sets a workspace's maximum private key lifetime",
    async () => {
      const lifetime = await cli("workspace", "key-lifetime", "--workspace", workspace.slug, "30d");
      expect(lifetime.json.privateKeyMaxLifetimeDays).toBe(30);
      const bound = await cli(
        "key",
        "create",
        "--workspace",
        workspace.slug,
        "--kind",
        "private",
        "--address",
        "203.0.113.0/24",
        "10.0.0.1",
      );
      expect(bound.json.apiKey.allowedAddresses).toEqual(["203.0.113.0/24", "10.0.0.1/32"]);
      const in30Days = Date.now() + 30 * 86_400_000;
      expect(Math.abs(Date.parse(bound.json.apiKey.expiresAt) - in30Days)).toBeLessThan(60_000);
      const site = await cli(
        "key",
        "create",
        "--workspace",
        workspace.slug,
        "--kind",
        "public",
        "--origin",
        "https://www.example.org",
      );
      expect(site.json.apiKey).toMatchObject({
        allowedOrigins: ["https://www.example.org"],
        expiresAt: null,
      });
      const lifted = await cli("workspace", "key-lifetime", "--workspace", workspace.slug, "none");
      expect(lifted.json.privateKeyMaxLifetimeDays).toBeNull();
      expect((await cli("workspace", "key-lifetime", "--workspace", workspace.slug, "soon")).code).toBe(2);
    },
    STANDALONE_TIMEOUT_MS,
  );

  it(
    "seed fills a workspace with demo content",
    async () => {
      const { code, json } = await cli("seed", "--workspace", workspace.slug);
      expect(code).toBe(0);
      expect(json.seeded).toEqual({ categories: 6, tags: 15, authors: 5, fields: 3, posts: 36 });
    },
    STANDALONE_TIMEOUT_MS,
  );

  it("answers bad usage with exit code 2 and the reason on stderr, before touching the database", async () => {
    const badKind = await cli("key", "create", "--workspace", workspace.slug, "--kind", "admin");
    expect(badKind).toMatchObject({ code: 2, stdout: "" });
    expect(badKind.stderr).toContain("argument 'admin' is invalid. Allowed choices are public, private.");
    const noWorkspace = await cli("key", "list");
    expect(noWorkspace.code).toBe(2);
    expect(noWorkspace.stderr).toContain("required option '-w, --workspace <id|slug>' not specified");
    const noName = await cli("workspace", "create");
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("missing required argument 'name'");
    const unknown = await cli("keys", "list");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'keys'");
    const nothing = await cli();
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("Usage: content-gateway [options] [command]");
  });

  it(
    "fails with exit code 1 and a clear message for an unknown workspace or key",
    async () => {
      const missing = await cli("key", "list", "--workspace", "nope");
      expect(missing).toMatchObject({ code: 1, stdout: "" });
      expect(missing.stderr.trim()).toBe('No workspace with id or slug "nope"');
      const unknownKey = await cli("key", "revoke", "no-such-key");
      expect(unknownKey.code).toBe(1);
      expect(unknownKey.stderr).not.toContain("    at ");
    },
    STANDALONE_TIMEOUT_MS,
  );

  it.each([
    [[], "content-gateway [options] [command]", ["workspace", "key", "seed", "migrate", "Exit codes"]],
    [["workspace"], "content-gateway workspace [options] [command]", ["create", "list"]],
    [["workspace", "create"], "content-gateway workspace create [options] <name>", ["the workspace's name"]],
    [["workspace", "list"], "content-gateway workspace list [options]", ["list workspaces"]],
    [["locale"], "content-gateway locale [options] [command]", ["add", "set", "list", "remove"]],
    [["locale", "add"], "content-gateway locale add [options] <code>", ["--fallback <code...>", "--default"]],
    [["key"], "content-gateway key [options] [command]", ["create", "list", "revoke"]],
    [
      ["key", "create"],
      "content-gateway key create [options]",
      ["--workspace <id|slug>", '"public", "private"'],
    ],
    [["key", "list"], "content-gateway key list [options]", ["--workspace <id|slug>"]],
    [["key", "revoke"], "content-gateway key revoke [options] <key-id>", ["from key list"]],
    [["seed"], "content-gateway seed [options]", ["--workspace <id|slug>"]],
    [["migrate"], "content-gateway migrate [options]", ["apply pending database migrations"]],
  ])("%j --help prints its usage on stdout and exits 0", async (words, usage, mentions) => {
    const { code, stdout } = await cli(...words, "--help");
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: ${usage}`);
    for (const text of mentions) expect(stdout).toContain(text);
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
