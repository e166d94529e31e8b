// The admin API: the CLI's operations over HTTP, only when ADMIN_TOKEN is set, guarded by it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const token = "admin-token-for-tests-0123456789";

describe("admin API", () => {
  let app: TestApp;
  let disabled: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ADMIN_TOKEN: token } });
    disabled = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
    await disabled.close();
  });
  const admin = { authorization: `Bearer ${token}` };

  it("is not mounted without ADMIN_TOKEN", async () => {
    const res = await disabled.request("GET", "/admin/workspaces", { headers: admin });
    expect(res.status).toBe(404);
  });

  it("refuses requests without the token or with a wrong one", async () => {
    expect((await app.request("GET", "/admin/workspaces")).status).toBe(401);
    const wrong = await app.request("GET", "/admin/workspaces", {
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "Unauthorized", message: expect.stringContaining("ADMIN_TOKEN") });
  });

  it("creates workspaces and keys, lists them and revokes keys, and revocation takes effect at once", async () => {
    const created = await app.request("POST", "/admin/workspaces", {
      headers: admin,
      body: { name: "Admin Made" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      workspace: { id: expect.any(String), name: "Admin Made", slug: "admin-made" },
      publicKey: expect.stringMatching(/^pk_/),
      privateKey: expect.stringMatching(/^sk_/),
      locale: { code: "en", name: "English" },
    });
    const list = await app.request("GET", "/admin/workspaces", { headers: admin });
    expect(list.body.workspaces).toContainEqual(created.body.workspace);

    const key = await app.request("POST", "/admin/workspaces/admin-made/keys", {
      headers: admin,
      body: { kind: "private" },
    });
    expect(key.status).toBe(201);
    expect((await app.request("GET", "/v1/posts", { key: key.body.key })).status).toBe(200);

    const keys = await app.request("GET", `/admin/workspaces/${created.body.workspace.id}/keys`, {
      headers: admin,
    });
    expect(keys.body.keys).toHaveLength(3);

    const revoked = await app.request("POST", `/admin/keys/${key.body.apiKey.id}/revoke`, { headers: admin });
    expect(revoked.body.apiKey.revokedAt).toEqual(expect.any(String));
    expect((await app.request("GET", "/v1/posts", { key: key.body.key })).status).toBe(401);
  });

  it("takes an identifier for the workspace whose id it is before the one whose slug it is", async () => {
    const first = await app.request("POST", "/admin/workspaces", { headers: admin, body: { name: "First" } });
    const firstId = first.body.workspace.id as string;
    // A name that is another workspace's id gives a slug that is that id.
    const second = await app.request("POST", "/admin/workspaces", {
      headers: admin,
      body: { name: firstId },
    });
    expect(second.body.workspace.slug).toBe(firstId);
    const issued = await app.request("POST", `/admin/workspaces/${firstId}/keys`, {
      headers: admin,
      body: { kind: "public" },
    });
    expect(issued.status).toBe(201);
    const keysOf = async (workspace: string) =>
      (await app.request("GET", `/admin/workspaces/${workspace}/keys`, { headers: admin })).body.keys;
    expect(await keysOf(second.body.workspace.id)).toHaveLength(2);
    expect(await keysOf(firstId)).toHaveLength(3);
  });

  it("answers bad input with 400 and unknown records with 404", async () => {
    const bad = await app.request("POST", "/admin/workspaces", { headers: admin, body: { name: "" } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: "name", message: expect.any(String) }]);
    const kind = await app.request("POST", "/admin/workspaces/admin-made/keys", {
      headers: admin,
      body: { kind: "root" },
    });
    expect(kind.status).toBe(400);
    const missing = await app.request("GET", "/admin/workspaces/nope/keys", { headers: admin });
    expect(missing.status).toBe(404);
    expect((await app.request("POST", "/admin/keys/nope/revoke", { headers: admin })).status).toBe(404);
  });
});
