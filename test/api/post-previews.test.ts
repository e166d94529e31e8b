// Draft previews: a private key makes a signed, expiring token for one post
// (POST /v1/posts/{id}/preview, GraphQL createPostPreview); any key of the workspace holding it reads
// exactly that post as it is now — draft or scheduled — through GET /v1/posts/{idOrSlug}?preview= or
// post(identifier:, preview:), and nothing else. The token expires (PREVIEW_TTL, 1 h by default), stops
// working when the post's previews are revoked (DELETE /v1/posts/{id}/preview) or the post is deleted,
// and is refused when altered. Such reads are never cached, anywhere.
import { type ExecutionResult, parse } from "graphql";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ALL_SCOPES, scopeFingerprint } from "../../src/auth/scopes.ts";
import { signPreviewToken } from "../../src/content/posts/preview-token.ts";
import { createContentYoga } from "../../src/graphql/yoga.ts";
import { silentLogger } from "../../src/logger.ts";
import { restErrorFromGraphQL } from "../../src/rest/errors.ts";
import { isoDate, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const PREVIEW_URL = "https://site.example/preview?token={token}&slug={slug}";
const HOUR_MS = 60 * 60 * 1000;

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let categoryId: string;
let draftId: string;

beforeAll(async () => {
  app = await startTestApp({ env: { PREVIEW_URL } });
  ws = await app.workspace("Previews");
  other = await app.workspace("Elsewhere");
  const make = restFixtures(app, ws.privateKey);
  categoryId = (await make.category("news")).id;
  draftId = (await make.post({ slug: "secret-draft", categoryId, status: "draft" })).id;
  await make.post({ slug: "other-draft", categoryId, status: "draft" });
  await make.post({ slug: "public-post", categoryId });
  await make.post({
    slug: "coming-soon",
    categoryId,
    publishedAt: new Date(Date.now() + 24 * HOUR_MS).toISOString(),
  });
}, 60_000);
afterAll(async () => app?.close());
afterEach(() => {
  vi.useRealTimers();
});

async function makePreview(identifier: string): Promise<{ postId: string; token: string; url: string }> {
  const res = await app.request("POST", `/v1/posts/${identifier}/preview`, { key: ws.privateKey });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.preview;
}

const read = (identifier: string, token: string, key = ws.publicKey) =>
  app.request("GET", `/v1/posts/${identifier}?preview=${encodeURIComponent(token)}`, { key });

function expectRefused(
  res: Awaited<ReturnType<TestApp["request"]>>,
  reason: "invalid" | "expired" | "revoked" | "other-post",
) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body).toEqual({
    error: reason === "expired" ? "Preview token expired" : "Invalid preview token",
    message: expect.any(String),
    reason,
  });
  expect(res.headers.get("cache-control")).toBe("private, no-store");
}

async function graphql(key: string, query: string, variables: Record<string, unknown> = {}) {
  return app.request("POST", "/graphql", {
    key,
    headers: { accept: "application/graphql-response+json" },
    body: { query, variables },
  });
}

describe("making a preview token", () => {
  it("answers 201 with a signed token, its expiry (1 h by default) and PREVIEW_URL filled in", async () => {
    const before = Date.now();
    const res = await app.request("POST", "/v1/posts/secret-draft/preview", { key: ws.privateKey });
    expect(res.status).toBe(201);
    const { preview } = res.body;
    expect(preview).toEqual({
      postId: draftId,
      token: expect.any(String),
      expiresAt: isoDate,
      url: expect.any(String),
    });
    expect(preview.token).toMatch(/^pvt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const expiresAt = Date.parse(preview.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + HOUR_MS);
    expect(preview.url).toBe(`https://site.example/preview?token=${preview.token}&slug=secret-draft`);
  });

  it("needs a private key: a public key gets 403, and so does revoking", async () => {
    for (const method of ["POST", "DELETE"]) {
      const res = await app.request(method, "/v1/posts/secret-draft/preview", { key: ws.publicKey });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "Forbidden",
        message: expect.stringContaining("private API key"),
        requiredScope: "drafts:read",
      });
    }
    const res = await graphql(
      ws.publicKey,
      'mutation { createPostPreview(identifier: "secret-draft") { token } }',
    );
    expect(res.body.errors[0]).toMatchObject({
      message:
        "Reading drafts, scheduled posts, revisions or previews needs a private API key; public keys only see published posts",
      extensions: { code: "FORBIDDEN" },
    });
  });

  it("answers 404 for a post that does not exist, and for another workspace's post", async () => {
    expect((await app.request("POST", "/v1/posts/no-such-post/preview", { key: ws.privateKey })).status).toBe(
      404,
    );
    const res = await app.request("POST", `/v1/posts/${draftId}/preview`, { key: other.privateKey });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("Post not found");
  });
});

describe("reading with a preview token", () => {
  it("shows a public key exactly that draft, by slug or id, as it is now — never cached", async () => {
    const { token } = await makePreview("secret-draft");
    const bySlug = await read("secret-draft", token);
    expect(bySlug.status, JSON.stringify(bySlug.body)).toBe(200);
    expect(bySlug.body.post).toMatchObject({ id: draftId, slug: "secret-draft", status: "draft" });
    expect(bySlug.headers.get("cache-control")).toBe("private, no-store");
    expect(bySlug.headers.get("x-cache")).toBeNull();
    expect((await read(draftId, token)).body.post.id).toBe(draftId);
    // The keyless workspace path reads as a public key does, so the token opens the draft there too.
    const keyless = await app.request("GET", `/v1/${ws.id}/posts/secret-draft?preview=${token}`);
    expect(keyless.status).toBe(200);
    expect(keyless.body.post.id).toBe(draftId);

    const edit = await app.request("PATCH", "/v1/posts/secret-draft", {
      key: ws.privateKey,
      body: { title: "Edited after the token was made" },
    });
    expect(edit.status).toBe(200);
    expect((await read("secret-draft", token)).body.post.title).toBe("Edited after the token was made");
  });

  it("works for a scheduled post, which stays hidden without the token", async () => {
    const { token } = await makePreview("coming-soon");
    const res = await read("coming-soon", token);
    expect(res.status).toBe(200);
    expect(res.body.post).toMatchObject({ slug: "coming-soon", status: "published", scheduled: true });
    expect((await app.request("GET", "/v1/posts/coming-soon", { key: ws.publicKey })).status).toBe(404);
  });

  it("grants nothing else: not another draft, not lists, not without the token, not another workspace", async () => {
    const { token } = await makePreview("secret-draft");
    expectRefused(await read("other-draft", token), "other-post");
    expectRefused(await read("public-post", token), "other-post");
    expectRefused(await read("secret-draft", token, other.publicKey), "other-post");
    expect((await app.request("GET", "/v1/posts/secret-draft", { key: ws.publicKey })).status).toBe(404);

    const list = await app.request("GET", `/v1/posts?limit=50&preview=${token}`, { key: ws.publicKey });
    expect(list.status).toBe(200);
    expect(list.body.posts.map((post: { slug: string }) => post.slug)).toEqual(["public-post"]);
    expect(list.body.pagination.totalItems).toBe(1);
    const drafts = await app.request("GET", `/v1/posts?status=draft&preview=${token}`, { key: ws.publicKey });
    expect(drafts.status).toBe(403);
    const gqlList = await graphql(ws.publicKey, "{ posts(limit: 50) { items { slug } } }");
    expect(gqlList.body.data.posts.items).toEqual([{ slug: "public-post" }]);
  });

  it("is the same through GraphQL: post(identifier:, preview:) with a public key, never cached", async () => {
    const made = await graphql(
      ws.privateKey,
      'mutation { createPostPreview(identifier: "secret-draft") { postId token expiresAt url } }',
    );
    const { token, postId, url } = made.body.data.createPostPreview;
    expect(postId).toBe(draftId);
    expect(url).toBe(`https://site.example/preview?token=${token}&slug=secret-draft`);
    const query = 'query($t: String) { post(identifier: "secret-draft", preview: $t) { slug status } }';
    for (let i = 0; i < 2; i++) {
      const res = await graphql(ws.publicKey, query, { t: token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { post: { slug: "secret-draft", status: "DRAFT" } } });
      expect(res.headers.get("cache-control")).toBe("private, no-store");
      expect(res.headers.get("x-cache")).toBeNull();
    }
    // GET, which HTTP caches could keep: no validators, no-store, never from the response cache.
    const getUrl = `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ t: token }))}`;
    for (let i = 0; i < 2; i++) {
      const res = await app.request("GET", getUrl, { key: ws.publicKey });
      expect(res.body).toEqual({ data: { post: { slug: "secret-draft", status: "DRAFT" } } });
      expect(res.headers.get("cache-control")).toBe("private, no-store");
      expect(res.headers.get("etag")).toBeNull();
      expect(res.headers.get("x-cache")).toBeNull();
    }
    const tail = token.endsWith("xx") ? "yy" : "xx"; // always a different token
    const refused = await graphql(ws.publicKey, query, { t: `${token.slice(0, -2)}${tail}` });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions).toEqual({ code: "PREVIEW_TOKEN_INVALID", reason: "invalid" });
    const plain = await graphql(ws.publicKey, '{ post(identifier: "secret-draft") { slug } }');
    expect(plain.body.errors[0].extensions.code).toBe("NOT_FOUND");
  });

  it("never lets a cached public answer and a preview answer stand in for each other", async () => {
    const plain = () => app.request("GET", "/v1/posts/public-post", { key: ws.publicKey });
    await plain();
    const hit = await plain();
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.headers.get("cache-control")).toBe("public, no-cache");
    const { token } = await makePreview("public-post");
    const previewed = await read("public-post", token);
    expect(previewed.status).toBe(200);
    expect(previewed.headers.get("x-cache")).toBeNull();
    expect(previewed.headers.get("cache-control")).toBe("private, no-store");
    expect((await plain()).headers.get("x-cache")).toBe("HIT");

    // A preview read first, then plain reads of the same draft: nothing was stored to leak.
    const draft = await makePreview("other-draft");
    expect((await read("other-draft", draft.token)).status).toBe(200);
    expect((await app.request("GET", "/v1/posts/other-draft", { key: ws.publicKey })).status).toBe(404);
    expect((await app.request("GET", "/v1/posts/other-draft", { key: ws.publicKey })).status).toBe(404);
  });
});

describe("when a token stops working", () => {
  it("expires after PREVIEW_TTL (1 h by default)", async () => {
    const { token } = await makePreview("secret-draft");
    const madeAt = Date.now();
    // Only Date is faked: the app runs in this process, so its clock moves with the test's.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(madeAt + HOUR_MS - 5_000);
    expect((await read("secret-draft", token)).status).toBe(200);
    vi.setSystemTime(madeAt + HOUR_MS + 5_000);
    expectRefused(await read("secret-draft", token), "expired");
  });

  it("stops when the post's previews are revoked; tokens made afterwards work, and nothing else changed", async () => {
    const first = await makePreview("secret-draft");
    const second = await makePreview("secret-draft");
    const before = await app.request("GET", "/v1/posts/secret-draft?status=all", { key: ws.privateKey });
    const eventsBefore = await app.request("GET", "/v1/events?limit=100", { key: ws.privateKey });

    const revoked = await app.request("DELETE", "/v1/posts/secret-draft/preview", { key: ws.privateKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: draftId });
    expectRefused(await read("secret-draft", first.token), "revoked");
    expectRefused(await read("secret-draft", second.token), "revoked");
    const fresh = await makePreview("secret-draft");
    expect((await read("secret-draft", fresh.token)).status).toBe(200);

    // Revoking is no content change: no event, and the post reads (updatedAt included) as before.
    const after = await app.request("GET", "/v1/posts/secret-draft?status=all", { key: ws.privateKey });
    expect(after.body).toEqual(before.body);
    const eventsAfter = await app.request("GET", "/v1/events?limit=100", { key: ws.privateKey });
    expect(eventsAfter.body.events).toEqual(eventsBefore.body.events);
  });

  it("stops when the post is deleted: 404", async () => {
    const make = restFixtures(app, ws.privateKey);
    const doomed = await make.post({ slug: "doomed-draft", categoryId, status: "draft" });
    const { token } = await makePreview("doomed-draft");
    expect((await read("doomed-draft", token)).status).toBe(200);
    expect((await app.request("DELETE", `/v1/posts/${doomed.id}`, { key: ws.privateKey })).status).toBe(200);
    const res = await read("doomed-draft", token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Post not found", message: expect.any(String) });
  });

  it("refuses a tampered or forged token", async () => {
    const { token } = await makePreview("secret-draft");
    const [payload = "", signature = ""] = token.slice("pvt_".length).split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const longer = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 365 * 24 * HOUR_MS }));
    const otherPost = Buffer.from(JSON.stringify({ ...claims, p: "someone-elses-post" }));
    const forged = signPreviewToken(
      { workspaceId: ws.id, postId: draftId, generation: claims.g, expiresAt: new Date(claims.exp) },
      "a-secret-that-is-not-this-services-secret",
    );
    for (const tampered of [
      `pvt_${longer.toString("base64url")}.${signature}`,
      `pvt_${otherPost.toString("base64url")}.${signature}`,
      `pvt_${payload}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
      `pvt_${payload}.${signature.slice(0, -4)}`,
      forged,
      "pvt_.",
      "not-a-token",
      `${token}${"x".repeat(1_000)}`.slice(0, 999),
    ])
      expectRefused(await read("secret-draft", tampered), "invalid");
    // Longer than any token: refused as a bad parameter before anything is checked.
    expect((await read("secret-draft", "x".repeat(1_001))).status).toBe(400);
  });
});

describe("without a signing secret (DATABASE_URL and no PREVIEW_SECRET)", () => {
  it("answers PREVIEWS_UNAVAILABLE (REST: 503) for making a token and for reading with one", async () => {
    const yoga = createContentYoga(app.db.prisma, {
      config: app.config,
      logger: silentLogger,
      sql: app.db.sql,
      mediaStorage: app.mediaStorage,
    });
    const scopes = new Set(ALL_SCOPES);
    const caller = {
      keyId: null,
      workspaceId: ws.id,
      keyKind: "private" as const,
      scopes,
      audience: "private" as const,
      fingerprint: scopeFingerprint("private", scopes),
    };
    for (const query of [
      'mutation { createPostPreview(identifier: "secret-draft") { token } }',
      '{ post(identifier: "secret-draft", preview: "pvt_x.y") { id } }',
    ]) {
      const { contextFactory, execute, schema } = yoga.getEnveloped({ req: { caller } } as never);
      const result = await execute({ schema, document: parse(query), contextValue: await contextFactory() });
      const errors = (result as ExecutionResult).errors ?? [];
      expect(errors.map((error) => error.extensions)).toEqual([
        { code: "PREVIEWS_UNAVAILABLE", http: { status: 503 } },
      ]);
      expect(restErrorFromGraphQL(errors)).toEqual({
        status: 503,
        body: { error: "Previews not configured", message: expect.stringContaining("PREVIEW_SECRET") },
      });
    }
  });
});
