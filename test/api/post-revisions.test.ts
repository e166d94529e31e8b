// Post revisions: every content write stores one (who, when, the whole content); they list newest
// first, compare (changed fields and a line diff of the body) and restore — restoring brings back an
// old body and tags as a new revision with the usual events. Private keys only; the last
// REVISIONS_KEEP per post are kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let postId: string;
const tagIds: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp({ env: { REVISIONS_KEEP: "4" } });
  ws = await app.workspace("Revisions");
  const make = restFixtures(app, ws.privateKey);
  const news = await make.category("news");
  for (const slug of ["alpha", "beta"]) tagIds[slug] = (await make.tag(slug)).id;
  const post = await make.post({
    slug: "revised",
    title: "First title",
    categoryId: news.id,
    tags: [tagIds.alpha as string],
    content: "<p>Line one</p><p>Line two</p>",
  });
  postId = post.id;
  const patch = (body: Record<string, unknown>) =>
    app.request("PATCH", `/v1/posts/${postId}`, { key: ws.privateKey, body });
  expect(
    (await patch({ content: "<p>Line one</p><p>Line 2, rewritten</p>", tags: [tagIds.beta] })).status,
  ).toBe(200);
  expect((await patch({ title: "Second title" })).status).toBe(200);
}, 60_000);
afterAll(async () => app?.close());

const get = (path: string, key = ws.privateKey) => app.request("GET", path, { key });

describe("post revisions", () => {
  it("lists one revision per write, newest first, with the key that made it", async () => {
    const res = await get(`/v1/posts/${postId}/revisions`);
    expect(res.status).toBe(200);
    expect(res.body.revisions.map((r: { number: number }) => r.number)).toEqual([3, 2, 1]);
    expect(res.body.pagination).toMatchObject({ totalItems: 3, currentPage: 1 });
    const [latest] = res.body.revisions;
    expect(latest.actorKeyId).toEqual(expect.any(String));
    expect(latest.actorName).toMatch(/^private key sk_/);
    expect(JSON.stringify(res.body)).not.toContain(ws.privateKey);
    expect(latest.snapshot).toMatchObject({ title: "Second title", slug: "revised", status: "published" });
    const paged = await get(`/v1/posts/revised/revisions?limit=2&page=2`);
    expect(paged.body.revisions.map((r: { number: number }) => r.number)).toEqual([1]);
  });

  it("reads one revision, and compares two: changed fields and a line diff of the body", async () => {
    const first = await get(`/v1/posts/${postId}/revisions/1`);
    expect(first.status).toBe(200);
    expect(first.body.revision.snapshot).toMatchObject({
      title: "First title",
      content: "<p>Line one</p><p>Line two</p>",
      tags: [{ id: tagIds.alpha, slug: "alpha" }],
    });
    const compared = await get(`/v1/posts/${postId}/revisions/3?compare=1`);
    expect(compared.status).toBe(200);
    const { comparison } = compared.body;
    expect(comparison.from).toBe(1);
    expect(comparison.to).toBe(3);
    expect(comparison.changes.map((c: { field: string }) => c.field)).toEqual(["title", "content", "tags"]);
    expect(comparison.changes[0]).toEqual({ field: "title", from: "First title", to: "Second title" });
    expect(comparison.changes[2]).toEqual({ field: "tags", from: [tagIds.alpha], to: [tagIds.beta] });
    expect(comparison.contentDiff).toEqual([
      { added: false, removed: false, value: "<p>Line one</p>\n" },
      { added: false, removed: true, value: "<p>Line two</p>\n" },
      { added: true, removed: false, value: "<p>Line 2, rewritten</p>\n" },
    ]);
  });

  it("restore brings back the old body and tags as a new revision, with the usual events", async () => {
    const restored = await app.request("POST", `/v1/posts/${postId}/revisions/1/restore`, {
      key: ws.privateKey,
    });
    expect(restored.status).toBe(200);
    expect(restored.body.post).toMatchObject({ id: postId, title: "First title", status: "published" });
    const read = await get(`/v1/posts/${postId}`);
    expect(read.body.post.content).toBe("<p>Line one</p><p>Line two</p>");
    expect(read.body.post.tags.map((tag: { slug: string }) => tag.slug)).toEqual(["alpha"]);
    const list = await get(`/v1/posts/${postId}/revisions`);
    expect(list.body.revisions[0].number).toBe(4);
    const compared = await get(`/v1/posts/${postId}/revisions/4?compare=1`);
    expect(compared.body.comparison.changes).toEqual([]);
    const events = await get("/v1/events?limit=100");
    const ofPost = events.body.events.filter((event: { resourceId: string }) => event.resourceId === postId);
    expect(ofPost.map((event: { type: string }) => event.type)).toEqual([
      "post.created",
      "post.published",
      "post.updated",
      "post.updated",
      "post.updated",
    ]);
    expect(ofPost.at(-1).data).toMatchObject({ title: "First title", tags: [{ slug: "alpha" }] });
  });

  it("keeps the last REVISIONS_KEEP per post", async () => {
    const patch = (title: string) =>
      app.request("PATCH", `/v1/posts/${postId}`, { key: ws.privateKey, body: { title } });
    expect((await patch("Fifth")).status).toBe(200);
    expect((await patch("Sixth")).status).toBe(200);
    const list = await get(`/v1/posts/${postId}/revisions`);
    expect(list.body.revisions.map((r: { number: number }) => r.number)).toEqual([6, 5, 4, 3]);
    expect((await get(`/v1/posts/${postId}/revisions/1`)).status).toBe(404);
  });

  it("keeps the last REVISIONS_KEEP of each translation: many French writes leave the others' alone", async () => {
    const own = await app.workspace("Revisions per translation");
    const make = restFixtures(app, own.privateKey);
    const write = async (method: string, path: string, body: Record<string, unknown>) => {
      const res = await app.request(method, path, { key: own.privateKey, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    };
    await write("POST", "/v1/locales", { code: "de" });
    await write("POST", "/v1/locales", { code: "fr" });
    const post = await make.post({
      slug: "bread",
      title: "Bread",
      categoryId: (await make.category("food")).id,
    });
    const translation = { description: "Bread", content: "<p>Bread</p>", status: "draft" };
    await write("PATCH", `/v1/posts/${post.id}?locale=de`, { ...translation, title: "Brot", slug: "brot" });
    await write("PATCH", `/v1/posts/${post.id}?locale=fr`, { ...translation, title: "Pain 1", slug: "pain" });
    for (const n of [2, 3, 4, 5, 6])
      await write("PATCH", `/v1/posts/${post.id}?locale=fr`, { title: `Pain ${n}` });

    const titles = async (query: string) =>
      (await get(`/v1/posts/${post.id}/revisions${query}`, own.privateKey)).body.revisions.map(
        (revision: { snapshot: { title: string } }) => revision.snapshot.title,
      );
    expect(await titles("?locale=fr")).toEqual(["Pain 6", "Pain 5", "Pain 4", "Pain 3"]);
    expect(await titles("?locale=de")).toEqual(["Brot"]);
    expect(await titles("")).toEqual(["Bread"]);
  });

  it("is for private keys only, and 404s what does not exist", async () => {
    expect((await get(`/v1/posts/${postId}/revisions`, ws.publicKey)).status).toBe(403);
    expect((await get(`/v1/posts/${postId}/revisions/3`, ws.publicKey)).status).toBe(403);
    expect(
      (await app.request("POST", `/v1/posts/${postId}/revisions/3/restore`, { key: ws.publicKey })).status,
    ).toBe(403);
    expect((await get(`/v1/posts/${postId}/revisions/99`)).status).toBe(404);
    expect((await get(`/v1/posts/${postId}/revisions/abc`)).status).toBe(400);
    expect((await get("/v1/posts/no-such-post/revisions")).status).toBe(404);
    const other = await app.workspace("Elsewhere");
    expect((await get(`/v1/posts/${postId}/revisions`, other.privateKey)).status).toBe(404);
    expect((await get(`/v1/posts/${postId}/revisions/3`, other.privateKey)).status).toBe(404);
  });

  it("GraphQL: Post.revisions, postRevisionComparison and restorePostRevision", async () => {
    const listed = await app.graphql(
      ws.privateKey,
      `{ post(identifier: "revised") { revisions(limit: 2) { items { number actorName } pagination { totalItems } } } }`,
    );
    expect(listed.errors).toBeUndefined();
    expect(listed.data?.post.revisions.items.map((r: { number: number }) => r.number)).toEqual([6, 5]);
    const compared = await app.graphql(
      ws.privateKey,
      `{ postRevisionComparison(identifier: "revised", number: 6, compareTo: 5) { changes { field from to } } }`,
    );
    expect(compared.data?.postRevisionComparison.changes).toEqual([
      { field: "title", from: "Fifth", to: "Sixth" },
    ]);
    const restored = await app.graphql(
      ws.privateKey,
      `mutation { restorePostRevision(identifier: "revised", number: 5) { title } }`,
    );
    expect(restored.data?.restorePostRevision).toEqual({ title: "Fifth" });
    const denied = await app.graphql(
      ws.publicKey,
      `{ postRevision(identifier: "revised", number: 6) { number } }`,
    );
    expect(denied.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });
});
