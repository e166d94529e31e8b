// Workspaces: a key only ever reaches its own workspace, and the read-only path form
// `/v1/{workspace_id}/…` (no key needed, drafts never shown without one).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
const bIds: Record<"post" | "draft" | "category" | "tag" | "author", string> = {
  post: "",
  draft: "",
  category: "",
  tag: "",
  author: "",
};

beforeAll(async () => {
  app = await startTestApp();
  a = await app.workspace("Workspace A");
  b = await app.workspace("Workspace B");
  const fa = restFixtures(app, a.privateKey);
  await fa.post({ slug: "a-post", categoryId: (await fa.category("a-news")).id });

  const fb = restFixtures(app, b.privateKey);
  bIds.category = (await fb.category("b-news")).id;
  bIds.tag = (await fb.tag("b-tag")).id;
  bIds.author = (await fb.author("b-author")).id;
  bIds.post = (
    await fb.post({ slug: "b-post", categoryId: bIds.category, tags: [bIds.tag], authors: [bIds.author] })
  ).id;
  bIds.draft = (await fb.post({ slug: "b-draft", categoryId: bIds.category, status: "draft" })).id;
});
afterAll(async () => app?.close());

describe("a key never reaches another workspace", () => {
  it("lists only its own posts", async () => {
    const res = await app.request("GET", "/v1/posts?status=all", { key: a.privateKey });
    expect(res.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["a-post"]);
  });

  it.each([
    ["posts", "post"],
    ["posts", "draft"],
    ["categories", "category"],
    ["tags", "tag"],
    ["authors", "author"],
  ] as const)("B's %s (%s) are a 404 through A's key: read, update and delete", async (resource, which) => {
    const path = `/v1/${resource}/${bIds[which]}`;
    const template = `/v1/${resource}/{identifier}`;
    // Drafts too: `status=all` with A's private key still stops at A's own posts.
    const query = resource === "posts" ? "?status=all" : "";
    const read = await app.request("GET", `${path}${query}`, { key: a.privateKey });
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ error: expect.stringMatching(/not found/i), message: expect.any(String) });
    expectMatchesOpenApi(read, "get", template);

    const update = await app.request("PATCH", path, {
      key: a.privateKey,
      body: resource === "posts" ? { title: "Hijacked" } : { name: "Hijacked" },
    });
    expect(update.status).toBe(404);
    expectMatchesOpenApi(update, "patch", template);

    const remove = await app.request("DELETE", path, { key: a.privateKey });
    expect(remove.status).toBe(404);
    expectMatchesOpenApi(remove, "delete", template);

    const still = await app.request("GET", `${path}${query}`, { key: b.privateKey });
    expect(still.status).toBe(200);
    expect(JSON.stringify(still.body)).not.toContain("Hijacked");
  });

  it("B's slugs are not found through A's key either", async () => {
    expect((await app.request("GET", "/v1/posts/b-post", { key: a.publicKey })).status).toBe(404);
    expect((await app.request("GET", "/v1/categories/b-news", { key: a.publicKey })).status).toBe(404);
  });

  it("a post of A cannot point at B's category, tags or authors", async () => {
    const res = await app.request("POST", "/v1/posts", {
      key: a.privateKey,
      body: {
        title: "T",
        content: "<p>c</p>",
        description: "d",
        slug: "cross",
        categoryId: bIds.category,
        status: "published",
        tags: [bIds.tag],
        authors: [bIds.author],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([
      "categoryId",
      "tags",
      "authors",
    ]);
    expectMatchesOpenApi(res, "post", "/v1/posts");
  });

  it("slugs are unique per workspace only", async () => {
    const category = await app.request("POST", "/v1/categories", {
      key: a.privateKey,
      body: { name: "B news", slug: "b-news" },
    });
    expect(category.status).toBe(201);
    const post = await app.request("POST", "/v1/posts", {
      key: a.privateKey,
      body: {
        title: "T",
        content: "<p>c</p>",
        description: "d",
        slug: "b-post",
        categoryId: category.body.category.id,
        status: "published",
      },
    });
    expect(post.status).toBe(201);
  });
});

describe("the workspace path form /v1/{workspace_id}/…", () => {
  it("never shadows a keyed route: records whose slug is a resource name stay reachable", async () => {
    const f = restFixtures(app, a.privateKey);
    const records = [
      ["categories", "category", (await f.category("posts")).id],
      ["tags", "tag", (await f.tag("posts")).id],
      ["authors", "author", (await f.author("tags")).id],
    ] as const;
    for (const [resource, one, id] of records) {
      const slug = resource === "authors" ? "tags" : "posts";
      const res = await app.request("GET", `/v1/${resource}/${slug}`, { key: a.publicKey });
      expect(res.status, `${resource}/${slug}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body[one]).toMatchObject({ id, slug });
      expectMatchesOpenApi(res, "get", `/v1/${resource}/${slug}`);
    }
  });

  // Each read of the path form must give exactly what the keyed route gives B's public key.
  const reads = [
    ["/posts", "/posts"],
    ["/posts/b-post", "/posts/{identifier}"],
    ["/posts/{postId}", "/posts/{identifier}"],
    ["/categories", "/categories"],
    ["/categories/b-news", "/categories/{identifier}"],
    ["/tags", "/tags"],
    ["/tags/b-tag", "/tags/{identifier}"],
    ["/authors", "/authors"],
    ["/authors/b-author", "/authors/{identifier}"],
    ["/fields", "/fields"],
  ] as const;
  const concrete = (path: string) => path.replace("{postId}", bIds.post);

  it.each(reads)("GET /v1/{workspace_id}%s without a key = the keyed read", async (path, template) => {
    const viaPath = await app.request("GET", `/v1/${b.id}${concrete(path)}`);
    expect(viaPath.status, JSON.stringify(viaPath.body)).toBe(200);
    expectMatchesOpenApi(viaPath, "get", `/v1/{workspace_id}${template}`);
    const keyed = await app.request("GET", `/v1${concrete(path)}`, { key: b.publicKey });
    expect(viaPath.body).toEqual(keyed.body);
  });

  it.each(reads)("GET /v1/{workspace_id}%s with either key of that workspace", async (path) => {
    for (const key of [b.publicKey, `Bearer ${b.privateKey}`]) {
      expect((await app.request("GET", `/v1/${b.id}${concrete(path)}`, { key })).status).toBe(200);
    }
  });

  it.each(reads)("GET /v1/{workspace_id}%s with a key of another workspace → 403", async (path, template) => {
    const res = await app.request("GET", `/v1/${b.id}${concrete(path)}`, { key: a.privateKey });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Forbidden", message: expect.stringMatching(/another workspace/) });
    expectMatchesOpenApi(res, "get", `/v1/{workspace_id}${template}`);
  });

  it.each(reads)("GET /v1/{workspace_id}%s with an invalid key → 401", async (path, template) => {
    const res = await app.request("GET", `/v1/${b.id}${concrete(path)}`, { key: "pk_not_a_real_key_at_all" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized", message: expect.any(String) });
    expectMatchesOpenApi(res, "get", `/v1/{workspace_id}${template}`);
  });

  it.each(reads)("GET /v1/{unknown workspace}%s → 404", async (path, template) => {
    const res = await app.request("GET", `/v1/no-such-workspace${concrete(path)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Workspace not found",
      message: expect.stringContaining("no-such-workspace"),
    });
    expectMatchesOpenApi(res, "get", `/v1/{workspace_id}${template}`);
  });

  describe("drafts", () => {
    it("are not listed and not found without a key", async () => {
      const list = await app.request("GET", `/v1/${b.id}/posts`);
      expect(list.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["b-post"]);
      for (const identifier of ["b-draft", bIds.draft]) {
        const res = await app.request("GET", `/v1/${b.id}/posts/${identifier}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: "Post not found", message: expect.any(String) });
      }
    });

    it.each([
      `/posts?status=draft`,
      `/posts?status=all`,
      `/posts/b-draft?status=all`,
      `/posts/b-draft?status=draft`,
    ])("%s without a key → 403", async (path) => {
      const res = await app.request("GET", `/v1/${b.id}${path}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "Forbidden",
        message: expect.stringMatching(/private/),
        requiredScope: "drafts:read",
      });
      expectMatchesOpenApi(
        res,
        "get",
        path.startsWith("/posts?") ? "/v1/{workspace_id}/posts" : "/v1/{workspace_id}/posts/{identifier}",
      );
    });

    it("are shown with the workspace's private key", async () => {
      const res = await app.request("GET", `/v1/${b.id}/posts?status=draft`, { key: b.privateKey });
      expect(res.status).toBe(200);
      expect(res.body.posts.map((p: { slug: string }) => p.slug)).toEqual(["b-draft"]);
    });
  });
});
