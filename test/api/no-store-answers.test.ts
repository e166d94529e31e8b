// Answers that carry a secret (new API keys, exports, webhook signing secrets, preview tokens) or admin
// state say `Cache-Control: no-store`, so no browser or proxy keeps them: every admin answer (refusals
// too), every REST write and every GraphQL mutation. Reads keep their own caching headers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const ADMIN_TOKEN = "admin-token-for-no-store-tests-01";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN } });
  ws = await app.workspace("No store");
});
afterAll(() => app?.close());

const noStore = expect.stringMatching(/(^|,\s*)no-store(,|$)/);

describe("admin answers", () => {
  it("are never stored: a new workspace's keys, a new key, lists, an export, refusals", async () => {
    const workspace = await app.request("POST", "/admin/workspaces", {
      headers: admin,
      body: { name: "Kept" },
    });
    expect(workspace.status).toBe(201);
    expect(workspace.body.privateKey).toMatch(/^sk_/);
    const key = await app.request("POST", "/admin/workspaces/kept/keys", {
      headers: admin,
      body: { kind: "private" },
    });
    expect(key.status).toBe(201);
    const answers = [
      workspace,
      key,
      await app.request("GET", "/admin/workspaces", { headers: admin }),
      await app.request("GET", "/admin/workspaces/kept/keys", { headers: admin }),
      await app.request("POST", `/admin/keys/${key.body.apiKey.id}/revoke`, { headers: admin }),
      await app.request("GET", "/admin/workspaces/kept/export", { headers: admin }),
      await app.request("GET", "/admin/workspaces/nope/keys", { headers: admin }),
      await app.request("GET", "/admin/workspaces", { headers: { authorization: "Bearer wrong" } }),
    ];
    expect(answers.map((res) => res.status)).toEqual([201, 201, 200, 200, 200, 200, 404, 401]);
    for (const res of answers) expect(res.headers.get("cache-control")).toEqual(noStore);
  });
});

describe("answers holding a secret over /v1 and /graphql", () => {
  it("REST writes are never stored: a webhook endpoint's secret, its rotation, a preview token", async () => {
    const created = await app.request("POST", "/v1/webhooks", {
      key: ws.privateKey,
      body: { url: "https://hooks.test/in", events: ["*"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.webhook.secret).toMatch(/^whsec_/);
    const rotated = await app.request("POST", `/v1/webhooks/${created.body.webhook.id}/rotate-secret`, {
      key: ws.privateKey,
    });
    expect(rotated.status).toBe(200);
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("drafts");
    const post = await f.post({ slug: "draft", categoryId: category.id, status: "draft" });
    const preview = await app.request("POST", `/v1/posts/${post.id}/preview`, { key: ws.privateKey });
    expect(preview.status).toBe(201);
    expect(preview.body.preview.token).toEqual(expect.any(String));
    for (const res of [created, rotated, preview]) expect(res.headers.get("cache-control")).toEqual(noStore);
  });

  it("GraphQL mutations are never stored; reads keep their caching headers", async () => {
    const res = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.privateKey, "content-type": "application/json" },
      body: JSON.stringify({
        query:
          'mutation { createWebhookEndpoint(input: { url: "https://hooks.test/gql", events: ["*"] }) { secret } }',
      }),
    });
    const body = await res.json();
    expect(body.data.createWebhookEndpoint.secret).toMatch(/^whsec_/);
    expect(res.headers.get("cache-control")).toEqual(noStore);

    const read = await app.request("GET", "/v1/tags", { key: ws.publicKey });
    expect(read.status).toBe(200);
    expect(read.headers.get("cache-control")).not.toEqual(noStore);
  });
});
