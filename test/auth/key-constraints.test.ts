// What a key is bound to besides its scopes (issue 57): the browser origins of a public key (enforced on
// Origin and reflected in CORS), the client address ranges of a private key (the rate limiter's address,
// TRUST_PROXY included), a workspace's maximum lifetime for private keys, and api_key.expired in the
// change log, recorded once across instances. The admin API makes and manages such keys too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../../src/auth/api-keys.ts";
import { recordExpiredKeys } from "../../src/auth/key-expiry-recorder.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const ADMIN_TOKEN = "admin-token-for-key-constraints-0123";
const SITE = "https://www.example.org";
const OFFICE = "203.0.113.0/24";

let app: TestApp;
let ws: TestWorkspace;
let recording: string[] | null = null;

beforeAll(async () => {
  app = await startTestApp({
    // The test app trusts X-Forwarded-For from loopback, so a test can be a client at any address.
    env: { CACHE: "memory", TRUST_PROXY: "loopback", ADMIN_TOKEN },
    onQuery: (sql) => recording?.push(sql),
  });
  ws = await app.workspace("Key constraints");
});
afterAll(() => app?.close());

async function statementsOf<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  recording = [];
  try {
    return { result: await run(), statements: recording };
  } finally {
    recording = null;
  }
}

const admin = (method: string, path: string, body?: unknown) =>
  app.request(method, `/admin${path}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(body !== undefined ? { body } : {}),
  });

describe("a public key bound to origins", () => {
  it("answers its origins with their own name in CORS, and refuses others (403) and requests without Origin", async () => {
    const { key } = await issueKey(app.db.prisma, ws.id, { kind: "public", allowedOrigins: [SITE] });
    const allowed = await app.request("GET", "/v1/posts", { key, headers: { origin: SITE } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(allowed.headers.get("vary")).toMatch(/Origin/);

    const elsewhere = await app.request("GET", "/v1/posts", {
      key,
      headers: { origin: "https://evil.test" },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toMatchObject({ error: "Forbidden" });
    expect(elsewhere.body.message).toContain("https://evil.test");
    expect(elsewhere.headers.get("access-control-allow-origin")).toBeNull();

    const noOrigin = await app.request("GET", "/v1/posts", { key });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.message).toMatch(/no Origin/);

    const graphql = await app.request("POST", "/graphql", {
      key,
      headers: { origin: "https://evil.test", accept: "application/json" },
      body: { query: "{ posts { items { id } } }" },
    });
    expect(graphql.status).toBe(403);
    expect(graphql.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  it("is refused from another origin even where the URL's answer is cached, and gets the hit from its own", async () => {
    const open = await issueKey(app.db.prisma, ws.id, { kind: "public" });
    const bound = await issueKey(app.db.prisma, ws.id, { kind: "public", allowedOrigins: [SITE] });
    const url = "/v1/categories";
    await app.request("GET", url, { key: open.key });
    expect((await app.request("GET", url, { key: open.key })).headers.get("x-cache")).toBe("HIT");
    // The same fingerprint (a public key's): the answer is the same, but the key may not be used here.
    const refused = await app.request("GET", url, {
      key: bound.key,
      headers: { origin: "https://evil.test" },
    });
    expect(refused.status).toBe(403);
    const hit = await app.request("GET", url, { key: bound.key, headers: { origin: SITE } });
    expect(hit.status).toBe(200);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.headers.get("access-control-allow-origin")).toBe(SITE);
    // An unbound key still answers every origin with `*`.
    const other = await app.request("GET", url, { key: open.key, headers: { origin: "https://evil.test" } });
    expect(other.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("a private key bound to address ranges", () => {
  it("answers clients in its ranges and refuses others with 403, with no statement once the key is known", async () => {
    const { key } = await issueKey(app.db.prisma, ws.id, { kind: "private", allowedAddresses: [OFFICE] });
    const from = (address: string) =>
      app.request("GET", "/v1/posts?status=all", { key, headers: { "x-forwarded-for": address } });
    expect((await from("203.0.113.7")).status).toBe(200);
    const { result, statements } = await statementsOf(() => from("198.51.100.1"));
    expect(result.status).toBe(403);
    expect(result.body.message).toContain("198.51.100.1");
    expect(result.body.message).toContain(OFFICE);
    expect(statements).toEqual([]);
  });

  it("makes keys only within its own ranges: none asked gives its own, a wider one is refused", async () => {
    const maker = await issueKey(app.db.prisma, ws.id, { kind: "private", allowedAddresses: [OFFICE] });
    const headers = { "x-forwarded-for": "203.0.113.9" };
    const plain = await app.request("POST", "/v1/keys", {
      key: maker.key,
      headers,
      body: { kind: "private", name: "ci", scopes: ["content:read"] },
    });
    expect(plain.status).toBe(201);
    expect(plain.body.apiKey.allowedAddresses).toEqual([OFFICE]);
    const narrower = await app.request("POST", "/v1/keys", {
      key: maker.key,
      headers,
      body: { kind: "private", scopes: ["content:read"], allowedAddresses: ["203.0.113.64/26"] },
    });
    expect(narrower.status).toBe(201);
    expect(narrower.body.apiKey.allowedAddresses).toEqual(["203.0.113.64/26"]);
    const wider = await app.request("POST", "/v1/keys", {
      key: maker.key,
      headers,
      body: { kind: "private", scopes: ["content:read"], allowedAddresses: ["203.0.0.0/16"] },
    });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toContain("203.0.0.0/16");
    // Nor may it rotate a key usable from anywhere: it would hold that key's new secret.
    const unbound = await issueKey(app.db.prisma, ws.id, { kind: "private", scopes: ["content:read"] });
    const rotate = await app.request("POST", `/v1/keys/${unbound.apiKey.id}/rotate`, {
      key: maker.key,
      headers,
      body: {},
    });
    expect(rotate.status).toBe(403);
  });

  it("refuses what is not a constraint, with the field named (400)", async () => {
    const cases = [
      { kind: "public", allowedOrigins: ["https://www.example.org/blog"] },
      { kind: "public", allowedOrigins: ["*"] },
      { kind: "private", allowedOrigins: [SITE] },
      { kind: "public", allowedAddresses: [OFFICE] },
      { kind: "private", allowedAddresses: ["10.0.0.0/33"] },
      { kind: "private", allowedAddresses: ["office"] },
    ];
    for (const body of cases) {
      const res = await app.request("POST", "/v1/keys", { key: ws.privateKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details[0].field).toMatch(/allowedOrigins|allowedAddresses/);
    }
    const normalised = await issueKey(app.db.prisma, ws.id, {
      kind: "private",
      allowedAddresses: ["10.1.2.3/8", "2001:db8::1"],
    });
    expect(normalised.apiKey.allowedAddresses).toEqual(["10.0.0.0/8", "2001:db8::1/128"]);
  });
});

describe("a workspace's maximum lifetime for private keys", () => {
  it("gives new private keys the maximum when none is asked, and refuses a later expiry", async () => {
    const bounded = await app.workspace("Bounded lifetimes");
    const set = await admin("PATCH", `/workspaces/${bounded.id}`, { privateKeyMaxLifetimeDays: 90 });
    expect(set.status).toBe(200);
    expect(set.body.privateKeyMaxLifetimeDays).toBe(90);
    const before = Date.now();
    const made = await app.request("POST", "/v1/keys", {
      key: bounded.privateKey,
      body: { kind: "private", scopes: ["content:read"] },
    });
    expect(made.status).toBe(201);
    const lives = new Date(made.body.apiKey.expiresAt).getTime() - before;
    expect(lives).toBeGreaterThan(90 * 86_400_000 - 60_000);
    expect(lives).toBeLessThanOrEqual(90 * 86_400_000 + 60_000);
    const tooLong = await app.request("POST", "/v1/keys", {
      key: bounded.privateKey,
      body: { kind: "private", expiresAt: new Date(Date.now() + 91 * 86_400_000).toISOString() },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toMatch(/at most 90 days/);
    // Public keys read published content only: the maximum is for private keys.
    const open = await app.request("POST", "/v1/keys", { key: bounded.privateKey, body: { kind: "public" } });
    expect(open.body.apiKey.expiresAt).toBeNull();
    const lifted = await admin("PATCH", `/workspaces/${bounded.id}`, { privateKeyMaxLifetimeDays: null });
    expect(lifted.body.privateKeyMaxLifetimeDays).toBeNull();
    expect((await admin("PATCH", `/workspaces/${bounded.id}`, { privateKeyMaxLifetimeDays: 0 })).status).toBe(
      400,
    );
  });
});

describe("api_key.expired", () => {
  it("is recorded once when a key's expiry passes, however many sweeps run at once", async () => {
    const audited = await app.workspace("Expiring keys");
    const { apiKey } = await issueKey(app.db.prisma, audited.id, {
      kind: "private",
      scopes: ["content:read"],
      expiresAt: new Date(Date.now() + 300),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Two instances' sweeps at the same moment: one records it, the other finds it recorded.
    const sweeps = await Promise.all([recordExpiredKeys(app.db.prisma), recordExpiredKeys(app.db.prisma)]);
    expect(sweeps.flat().filter((id) => id === apiKey.id)).toEqual([apiKey.id]);
    expect(await recordExpiredKeys(app.db.prisma)).not.toContain(apiKey.id);
    const log = await app.request("GET", "/v1/events?types=api_key.expired", { key: audited.privateKey });
    expect(log.status).toBe(200);
    expect(log.body.events.map((event: { resourceId: string }) => event.resourceId)).toEqual([apiKey.id]);
    expect(log.body.events[0].data).toMatchObject({ id: apiKey.id, expiresAt: apiKey.expiresAt });
  });
});

describe("the admin API", () => {
  it("makes keys with a name, scopes and constraints, rotates them with a grace, and revokes with a reason", async () => {
    const made = await admin("POST", `/workspaces/${ws.id}/keys`, {
      kind: "private",
      name: "image pipeline",
      scopes: ["media:write"],
      allowedAddresses: [OFFICE],
    });
    expect(made.status).toBe(201);
    expect(made.body.apiKey).toMatchObject({
      name: "image pipeline",
      scopes: ["media:write"],
      allowedAddresses: [OFFICE],
    });
    const rotated = await admin("POST", `/keys/${made.body.apiKey.id}/rotate`, { graceSeconds: 60 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.apiKey).toMatchObject({ name: "image pipeline", allowedAddresses: [OFFICE] });
    expect(rotated.body.replaced.graceEndsAt).not.toBeNull();
    const revoked = await admin("POST", `/keys/${rotated.body.apiKey.id}/revoke`, {
      reason: "pipeline retired",
      withRotation: true,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.apiKey.revokedReason).toBe("pipeline retired");
    const bad = await admin("POST", `/workspaces/${ws.id}/keys`, { kind: "private", scopes: ["everything"] });
    expect(bad.status).toBe(400);
  });
});
