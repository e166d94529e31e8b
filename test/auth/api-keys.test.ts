// Keys are stored only as hashes, found by hash, refused once revoked — in both storage modes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key-format.ts";
import { issueKey, listKeys, revokeKey } from "../../src/auth/api-keys.ts";
import { resolveApiKey } from "../../src/auth/resolve-api-key.ts";
import { ALL_SCOPES } from "../../src/auth/scopes.ts";
import { createWorkspace } from "../../src/auth/workspaces.ts";
import type { Database } from "../../src/db/database.ts";
import { openTestDatabase, storageMode } from "../helpers/test-database.ts";

describe(`API keys (${storageMode})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => db.close());

  it("creates a workspace with a public and a private key, stored only as hashes", async () => {
    const created = await createWorkspace(db.prisma, "Acme Blog");
    expect(created.workspace).toEqual({ id: expect.any(String), name: "Acme Blog", slug: "acme-blog" });
    expect(created.publicKey).toMatch(/^pk_/);
    expect(created.privateKey).toMatch(/^sk_/);
    const rows = await db.prisma.apiKey.findMany({ where: { workspaceId: created.workspace.id } });
    expect(rows).toHaveLength(2);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(created.publicKey);
    expect(stored).not.toContain(created.privateKey);
    expect(rows.map((r) => r.hash).sort()).toEqual(
      [hashApiKey(created.publicKey), hashApiKey(created.privateKey)].sort(),
    );
  });

  it("gives workspaces unique slugs", async () => {
    const first = await createWorkspace(db.prisma, "Same Name");
    const second = await createWorkspace(db.prisma, "Same Name");
    expect(first.workspace.slug).toBe("same-name");
    expect(second.workspace.slug).toBe("same-name-2");
  });

  it("resolves a key to its workspace and kind", async () => {
    const { workspace, publicKey, privateKey } = await createWorkspace(db.prisma, "Resolver");
    expect(await resolveApiKey(db.prisma, publicKey)).toEqual({
      keyId: expect.any(String),
      keyHint: expect.stringMatching(/^pk_/),
      workspaceId: workspace.id,
      keyKind: "public",
      scopes: new Set(["content:read"]),
      audience: "public",
      fingerprint: "public:content:read",
      allowedOrigins: [],
      allowedAddresses: [],
    });
    expect(await resolveApiKey(db.prisma, privateKey)).toEqual({
      keyId: expect.any(String),
      keyHint: expect.stringMatching(/^sk_/),
      workspaceId: workspace.id,
      keyKind: "private",
      scopes: new Set(ALL_SCOPES),
      audience: "private",
      fingerprint: "private:*",
      allowedOrigins: [],
      allowedAddresses: [],
    });
  });

  it("refuses unknown, malformed and tampered keys", async () => {
    const { publicKey } = await createWorkspace(db.prisma, "Tamper");
    // Change the last character to a different one: a fixed replacement would equal it for one key in 64.
    const tampered = `${publicKey.slice(0, -1)}${publicKey.endsWith("X") ? "Y" : "X"}`;
    expect(await resolveApiKey(db.prisma, tampered)).toBeNull();
    expect(await resolveApiKey(db.prisma, "pk_doesnotexist")).toBeNull();
    expect(await resolveApiKey(db.prisma, "not-a-key")).toBeNull();
    expect(await resolveApiKey(db.prisma, `pk_${"a".repeat(500)}`)).toBeNull();
  });

  it("refuses a revoked key and lists keys without their secrets", async () => {
    const { workspace } = await createWorkspace(db.prisma, "Revocation");
    const { key, apiKey } = await issueKey(db.prisma, workspace.id, { kind: "private" });
    expect(await resolveApiKey(db.prisma, key)).not.toBeNull();
    const revoked = await revokeKey(db.prisma, apiKey.id);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    expect(await resolveApiKey(db.prisma, key)).toBeNull();
    const listed = await listKeys(db.prisma, workspace.id);
    expect(listed).toHaveLength(3);
    expect(listed.find((k) => k.id === apiKey.id)).toEqual({
      id: apiKey.id,
      workspaceId: workspace.id,
      kind: "private",
      name: "",
      displayHint: `${key.slice(0, 9)}…`,
      scopes: ALL_SCOPES,
      allowedOrigins: [],
      allowedAddresses: [],
      createdAt: expect.any(String),
      expiresAt: null,
      lastUsedAt: null,
      lastUsedFrom: null,
      revokedAt: expect.any(String),
      revokedReason: null,
      rotatedFromId: null,
      graceEndsAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(key);
  });
});
