// PATCH and DELETE /v1/posts/{identifier}: partial updates, the status transitions of the contract's
// state table, replacement of tags and authors, and deletes.
import { describe, expect, it } from "vitest";
import { authorRef, POST_ITEM, postSuite, type Ref, taxonomyRef } from "../helpers/post-suite.ts";
import { isoDate } from "../helpers/rest-fixtures.ts";

const suite = postSuite();
const { refs, call, create, read, update, validBody } = suite;

describe("PATCH /v1/posts/{identifier}", () => {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

  it("changes only the given fields and answers with the write shape", async () => {
    const created = (await create({ ...validBody("patch-me"), tags: [refs.js.id], featured: true })).body
      .post;
    const res = await update("patch-me", { title: "New title" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      post: {
        id: created.id,
        slug: "patch-me",
        title: "New title",
        status: "published",
        featured: true,
        publishedAt: created.publishedAt,
        updatedAt: isoDate,
      },
    });
    const stored = (await read(created.id)).body.post;
    expect(stored).toMatchObject({
      title: "New title",
      description: "A post",
      content: "<p>Hello</p>",
      featured: true,
    });
    expect(stored.tags.map((t: Ref) => t.slug)).toEqual(["js"]);
    expect(stored.authors.map((a: Ref) => a.slug)).toEqual(["ann"]);
  });

  it("moves draft → published → draft, and updatedAt changes each time", async () => {
    const created = (await create({ ...validBody("moving"), status: "draft" })).body.post;
    expect((await read(created.id)).status).toBe(404);
    const stamps = [(await read(created.id, "status=all", suite.ws.privateKey)).body.post.updatedAt];

    await pause();
    const published = await update(created.id, { status: "published" });
    expect(published.body.post).toMatchObject({ status: "published", publishedAt: created.publishedAt });
    stamps.push(published.body.post.updatedAt);
    expect((await read(created.id)).body.post.status).toBe("published");

    await pause();
    const drafted = await update(created.id, { status: "draft" });
    expect(drafted.body.post.status).toBe("draft");
    stamps.push(drafted.body.post.updatedAt);
    expect((await read(created.id)).status).toBe(404);

    expect(new Set(stamps).size).toBe(3);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it("tags and authors, when given, replace the whole set; authors keep the given order", async () => {
    await create({ ...validBody("sets"), tags: [refs.js.id], authors: [refs.ann.id, refs.bob.id] });
    expect(
      (await update("sets", { tags: [refs.react.id], authors: [refs.cid.id, refs.ann.id] })).status,
    ).toBe(200);
    let stored = (await read("sets")).body.post;
    expect(stored.tags).toEqual([taxonomyRef(refs.react)]);
    expect(stored.authors).toEqual([authorRef(refs.cid), authorRef(refs.ann)]);

    expect((await update("sets", { tags: [], authors: [refs.bob.id, refs.cid.id] })).status).toBe(200);
    stored = (await read("sets")).body.post;
    expect(stored.tags).toEqual([]);
    expect(stored.authors.map((a: Ref) => a.slug)).toEqual(["bob", "cid"]);
  });

  it("changes the slug, the category and clears the cover image", async () => {
    const created = (await create({ ...validBody("old-slug"), coverImage: "https://img.example/c.png" })).body
      .post;
    const res = await update(created.id, { slug: "new-slug", categoryId: refs.guides.id, coverImage: null });
    expect(res.body.post).toMatchObject({ id: created.id, slug: "new-slug" });
    expect((await read("old-slug")).status).toBe(404);
    expect((await read("new-slug")).body.post).toMatchObject({
      coverImage: null,
      category: taxonomyRef(refs.guides),
    });
  });

  it("404 for a post that does not exist", async () => {
    const res = await update("missing-post", { title: "x" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Post not found", message: expect.stringContaining("missing-post") });
  });

  it("409 when the new slug is used by another post", async () => {
    await create(validBody("first-slug"));
    await create(validBody("second-slug"));
    const res = await update("second-slug", { slug: "first-slug" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "Slug already in use", message: expect.any(String) });
  });

  it("400 for bad values and for missing references, each one named", async () => {
    await create(validBody("strict"));
    const bad = await update("strict", { title: "", status: "archived" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(["status", "title"]);
    const missing = await update("strict", {
      categoryId: "gone",
      tags: ["gone-tag"],
      authors: ["gone-author"],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { field: string }) => d.field)).toEqual([
      "categoryId",
      "tags",
      "authors",
    ]);
  });
});

describe("DELETE /v1/posts/{identifier}", () => {
  it("200 {id}, then the post is gone", async () => {
    const created = (await create(validBody("doomed"))).body.post;
    const res = await call("DELETE", POST_ITEM, `/v1/posts/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id });
    expect((await read(created.id, "status=all", suite.ws.privateKey)).status).toBe(404);
    const again = await call("DELETE", POST_ITEM, `/v1/posts/${created.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "Post not found", message: expect.any(String) });
  });

  it("deletes by slug, drafts included", async () => {
    const created = (await create({ ...validBody("doomed-draft"), status: "draft" })).body.post;
    const res = await call("DELETE", POST_ITEM, "/v1/posts/doomed-draft");
    expect(res.body).toEqual({ id: created.id });
  });
});
