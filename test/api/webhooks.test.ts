// /v1/webhooks: create (the secret shown once), list, get (never the secret), update, delete, rotate the
// secret (the previous one signs for 24 h more), event type validation, refused private targets (unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS), private keys only, another workspace's endpoints 404.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeSecrets } from "../../src/content/deliveries/webhook-endpoints.ts";
import { signatureHeaders } from "../../src/webhooks/signing.ts";
import { notFoundBody } from "../helpers/expected-bodies.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;

const LIST = "/v1/webhooks";
const ONE = "/v1/webhooks/{id}";
const ROTATE = "/v1/webhooks/{id}/rotate-secret";
const isoDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const NOT_PUBLIC = "Must not point at a loopback, private, link-local or other non-public address";
const PRIVATE_ONLY = {
  error: "Forbidden",
  message: "Webhook endpoints need a private API key; public keys are embedded in websites",
  requiredScope: "webhooks:manage",
};

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  other = await app.workspace("Other");
});
afterAll(async () => app?.close());

const call = openApiClient(
  () => app,
  () => ws.privateKey,
);

async function create(body: Record<string, unknown>, key = ws.privateKey) {
  const res = await call("POST", LIST, LIST, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook as { id: string; secret: string } & Record<string, unknown>;
}

describe("POST /v1/webhooks", () => {
  it("creates an endpoint and answers it with its secret, in Standard Webhooks form", async () => {
    const res = await call("POST", LIST, LIST, {
      body: { url: "https://hooks.example.com/marble", events: ["post.published", "post.deleted"] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      webhook: {
        id: expect.any(String),
        url: "https://hooks.example.com/marble",
        description: null,
        events: ["post.published", "post.deleted"],
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        previousSecretExpiresAt: null,
        createdAt: isoDate,
        updatedAt: isoDate,
        secret: expect.stringMatching(SECRET),
      },
    });
    expect(Buffer.from(res.body.webhook.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
  });

  it('subscribes to every event type with ["*"], and keeps a description', async () => {
    const created = await create({
      url: "http://example.org:8080/in",
      events: ["*"],
      description: "Cache purge",
    });
    expect(created).toMatchObject({ events: ["*"], description: "Cache purge" });
  });

  it("drops repeated event types", async () => {
    const created = await create({
      url: "https://hooks.example.com/dedup",
      events: ["tag.created", "post.created", "tag.created"],
    });
    expect(created.events).toEqual(["post.created", "tag.created"]);
  });

  it("gives every endpoint its own secret", async () => {
    const a = await create({ url: "https://a.example.com/", events: ["*"] });
    const b = await create({ url: "https://b.example.com/", events: ["*"] });
    expect(a.secret).not.toBe(b.secret);
  });

  it.each([
    ["http://127.0.0.1:3000/hook"],
    ["http://localhost/hook"],
    ["http://169.254.169.254/latest/meta-data/"],
    ["http://10.0.0.8/"],
    ["http://192.168.1.20/"],
    ["http://100.64.1.1/"],
    ["http://[::1]/"],
    ["http://[fd00::5]/"],
    ["http://[::ffff:127.0.0.1]/"],
    ["http://0.0.0.0/"],
    ["http://2130706433/"],
  ])("refuses the private target %s with 400", async (url) => {
    const res = await call("POST", LIST, LIST, { body: { url, events: ["*"] } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [{ field: "url", message: NOT_PUBLIC }] });
  });

  it.each([
    [{ url: "ftp://example.com/", events: ["*"] }, [{ field: "url", message: "Must use http or https" }]],
    [
      { url: "example.com/hook", events: ["*"] },
      [{ field: "url", message: "Must be an absolute http or https URL" }],
    ],
    [
      { url: "https://example.com/", events: ["post.exploded"] },
      [{ field: "events.0", message: expect.stringMatching(/^Must be "\*" or one of post.created, /) }],
    ],
    [
      { url: "https://example.com/", events: ["*", "post.created"] },
      [{ field: "events", message: '"*" already subscribes to every event type: give it alone' }],
    ],
    [
      { url: `https://example.com/${"a".repeat(2_100)}`, events: ["*"] },
      [{ field: "url", message: "Must be at most 2048 characters" }],
    ],
  ])("refuses %j with the field at fault", async (body, details) => {
    const res = await call("POST", LIST, LIST, { body });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual(details);
  });

  it("refuses a body without url or events, or with no event type", async () => {
    for (const body of [
      { events: ["*"] },
      { url: "https://example.com/" },
      { url: "https://example.com/", events: [] },
    ]) {
      const res = await call("POST", LIST, LIST, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBeTypeOf("string");
    }
  });
});

describe("the number of endpoints", () => {
  it("is at most 50 per workspace: the 51st is refused until one is deleted", async () => {
    const crowded = await app.workspace("Crowded");
    const ids: string[] = [];
    for (let n = 0; n < 50; n++)
      ids.push((await create({ url: `https://h${n}.example.com/`, events: ["*"] }, crowded.privateKey)).id);
    const body = { url: "https://one-more.example.com/", events: ["*"] };
    const refused = await app.request("POST", LIST, { key: crowded.privateKey, body });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "Validation failed",
      message: "Too many webhook endpoints",
      details: [{ field: "url", message: "A workspace has at most 50 webhook endpoints; delete one first" }],
    });
    // Another workspace is not affected.
    await create(body);
    await app.request("DELETE", `/v1/webhooks/${ids[0]}`, { key: crowded.privateKey });
    expect((await app.request("POST", LIST, { key: crowded.privateKey, body })).status).toBe(201);
  });
});

describe("GET /v1/webhooks and /v1/webhooks/{id}", () => {
  it("lists the workspace's endpoints and reads one, never with a secret", async () => {
    const created = await create({ url: "https://read.example.com/", events: ["media.uploaded"] });
    const { secret, ...endpoint } = created;
    const one = await call("GET", `/v1/webhooks/${created.id}`, ONE);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ webhook: endpoint });
    const list = await call("GET", LIST, LIST);
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toContainEqual(endpoint);
    for (const body of [one.body, list.body]) {
      expect(JSON.stringify(body)).not.toContain(secret);
      expect(JSON.stringify(body)).not.toContain("whsec_");
    }
  });

  it("shows no endpoint of another workspace", async () => {
    const theirs = await create({ url: "https://theirs.example.com/", events: ["*"] }, other.privateKey);
    const list = await call("GET", LIST, LIST);
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(theirs.id);
    const one = await call("GET", `/v1/webhooks/${theirs.id}`, ONE);
    expect(one.status).toBe(404);
    expect(one.body).toEqual(notFoundBody("Webhook endpoint", theirs.id));
  });
});

describe("PATCH /v1/webhooks/{id}", () => {
  it("changes url, events, description and enabled; only what is given", async () => {
    const created = await create({ url: "https://old.example.com/", events: ["post.created"] });
    const path = `/v1/webhooks/${created.id}`;
    let res = await call("PATCH", path, ONE, {
      body: {
        url: "https://new.example.com/hook",
        events: ["tag.deleted", "tag.created"],
        description: "Tags",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.webhook).toMatchObject({
      url: "https://new.example.com/hook",
      events: ["tag.created", "tag.deleted"],
      description: "Tags",
      enabled: true,
    });
    expect(res.body.webhook).not.toHaveProperty("secret");
    res = await call("PATCH", path, ONE, { body: { enabled: false } });
    expect(res.body.webhook).toMatchObject({
      url: "https://new.example.com/hook",
      description: "Tags",
      enabled: false,
    });
    res = await call("PATCH", path, ONE, { body: { description: null, enabled: true } });
    expect(res.body.webhook).toMatchObject({ description: null, enabled: true });
    expect((await call("GET", path, ONE)).body.webhook).toEqual(res.body.webhook);
  });

  it("refuses a private target, null for what an endpoint must have, and an unknown event type", async () => {
    const created = await create({ url: "https://keep.example.com/", events: ["*"] });
    const path = `/v1/webhooks/${created.id}`;
    let res = await call("PATCH", path, ONE, { body: { url: "http://169.254.169.254/" } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: "url", message: NOT_PUBLIC }]);
    res = await call("PATCH", path, ONE, { body: { url: null } });
    expect(res.status).toBe(400);
    res = await call("PATCH", path, ONE, { body: { events: ["nope"] } });
    expect(res.status).toBe(400);
    expect((await call("GET", path, ONE)).body.webhook).toMatchObject({
      url: "https://keep.example.com/",
      events: ["*"],
    });
  });

  it("answers 404 for another workspace's endpoint and leaves it unchanged", async () => {
    const theirs = await create({ url: "https://theirs.example.com/p", events: ["*"] }, other.privateKey);
    const res = await call("PATCH", `/v1/webhooks/${theirs.id}`, ONE, { body: { enabled: false } });
    expect(res.status).toBe(404);
    const still = await app.request("GET", `/v1/webhooks/${theirs.id}`, { key: other.privateKey });
    expect(still.body.webhook.enabled).toBe(true);
  });
});

describe("POST /v1/webhooks/{id}/rotate-secret", () => {
  it("answers a new secret; for 24 hours deliveries are signed with both, each verifiable", async () => {
    const created = await create({ url: "https://rotate.example.com/", events: ["*"] });
    const before = Date.now();
    const res = await call("POST", `/v1/webhooks/${created.id}/rotate-secret`, ROTATE);
    expect(res.status).toBe(200);
    const { secret, ...endpoint } = res.body.webhook;
    expect(secret).toMatch(SECRET);
    expect(secret).not.toBe(created.secret);
    const overlapEnds = Date.parse(endpoint.previousSecretExpiresAt);
    expect(overlapEnds - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 5_000);
    expect(overlapEnds - before).toBeLessThanOrEqual(24 * 3_600_000 + 5_000);
    expect((await call("GET", `/v1/webhooks/${created.id}`, ONE)).body.webhook).toEqual(endpoint);

    // What a delivery signs with now: the stored secrets, the new one first.
    const stored = await app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    const secrets = activeSecrets(stored);
    expect(secrets).toEqual([secret, created.secret]);
    const body = JSON.stringify({ id: "evt_1", type: "post.created", data: {} });
    const headers = signatureHeaders({
      eventId: "evt_1",
      eventType: "post.created",
      deliveryId: "dlv_1",
      timestamp: new Date(),
      body,
      secrets,
    });
    expect(new Webhook(secret).verify(body, headers)).toBeTruthy();
    expect(new Webhook(created.secret).verify(body, headers)).toBeTruthy();
    // After the overlap only the new secret signs.
    expect(activeSecrets(stored, new Date(overlapEnds + 1))).toEqual([secret]);
  });

  it("keeps only the last two secrets when rotated twice", async () => {
    const created = await create({ url: "https://twice.example.com/", events: ["*"] });
    const first = (await call("POST", `/v1/webhooks/${created.id}/rotate-secret`, ROTATE)).body.webhook
      .secret;
    const second = (await call("POST", `/v1/webhooks/${created.id}/rotate-secret`, ROTATE)).body.webhook
      .secret;
    const stored = await app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(activeSecrets(stored)).toEqual([second, first]);
  });

  it("answers 404 for another workspace's endpoint", async () => {
    const theirs = await create({ url: "https://theirs.example.com/r", events: ["*"] }, other.privateKey);
    const res = await call("POST", `/v1/webhooks/${theirs.id}/rotate-secret`, ROTATE);
    expect(res.status).toBe(404);
    const stored = await app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: theirs.id } });
    expect(stored.secret).toBe(theirs.secret);
  });
});

describe("DELETE /v1/webhooks/{id}", () => {
  it("deletes the endpoint; it is gone after", async () => {
    const created = await create({ url: "https://bye.example.com/", events: ["*"] });
    const path = `/v1/webhooks/${created.id}`;
    const res = await call("DELETE", path, ONE);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id });
    expect((await call("GET", path, ONE)).status).toBe(404);
    expect((await call("DELETE", path, ONE)).body).toEqual(notFoundBody("Webhook endpoint", created.id));
  });

  it("answers 404 for another workspace's endpoint and keeps it", async () => {
    const theirs = await create({ url: "https://theirs.example.com/d", events: ["*"] }, other.privateKey);
    expect((await call("DELETE", `/v1/webhooks/${theirs.id}`, ONE)).status).toBe(404);
    expect((await app.request("GET", `/v1/webhooks/${theirs.id}`, { key: other.privateKey })).status).toBe(
      200,
    );
  });
});

describe("keys", () => {
  it("refuses public keys on every webhook route, reads included, with 403", async () => {
    const created = await create({ url: "https://keys.example.com/", events: ["*"] });
    const id = created.id;
    const cases: [string, string, string, unknown?][] = [
      ["GET", LIST, LIST],
      ["POST", LIST, LIST, { url: "https://x.example.com/", events: ["*"] }],
      ["GET", `/v1/webhooks/${id}`, ONE],
      ["PATCH", `/v1/webhooks/${id}`, ONE, { enabled: false }],
      ["DELETE", `/v1/webhooks/${id}`, ONE],
      ["POST", `/v1/webhooks/${id}/rotate-secret`, ROTATE],
    ];
    for (const [method, path, template, body] of cases) {
      const res = await call(method, path, template, { key: ws.publicKey, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual(PRIVATE_ONLY);
    }
    const stored = await app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({ enabled: true, secret: created.secret });
  });

  it("answers 401 without a key", async () => {
    expect((await app.request("GET", LIST)).status).toBe(401);
  });
});

describe("WEBHOOK_ALLOW_PRIVATE_TARGETS=true", () => {
  it("accepts loopback and private targets (local development, tests)", async () => {
    const local = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
    try {
      const { privateKey } = await local.workspace();
      for (const url of ["http://127.0.0.1:4000/hook", "http://localhost:4000/", "http://10.0.0.8/"]) {
        const res = await local.request("POST", LIST, { key: privateKey, body: { url, events: ["*"] } });
        expect(res.status, url).toBe(201);
        expect(res.body.webhook.url).toBe(url);
      }
      const scheme = await local.request("POST", LIST, {
        key: privateKey,
        body: { url: "file:///etc/passwd", events: ["*"] },
      });
      expect(scheme.status).toBe(400);
    } finally {
      await local.close();
    }
  });
});
