// GET /v1/posts/{identifier} and POST /v1/posts: the read form, drafts, and every create rule.
// Updates and deletes are in posts-update.test.ts, the list in posts-list.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { authorRef, postSuite, type Ref, taxonomyRef } from "../helpers/post-suite.ts";
import { day, isoDate } from "../helpers/rest-fixtures.ts";

const suite = postSuite();
const { refs, create, read, validBody } = suite;

describe("GET /v1/posts/{identifier}", () => {
  let post: Ref;
  beforeAll(async () => {
    post = await suite.fixtures.post({
      slug: "full",
      title: "A full post",
      categoryId: refs.news.id,
      tags: [refs.react.id, refs.js.id],
      authors: [refs.bob.id, refs.ann.id],
      featured: true,
      coverImage: "https://img.example/cover.png",
      content: "<h2>Heading</h2><p>Some <em>text</em></p>",
      description: "Everything set",
      publishedAt: day(10),
    });
  });

  const fullPost = () => ({
    post: {
      id: post.id,
      slug: "full",
      title: "A full post",
      status: "published",
      featured: true,
      coverImage: "https://img.example/cover.png",
      description: "Everything set",
      publishedAt: day(10),
      scheduled: false,
      updatedAt: isoDate,
      attribution: null,
      content: "<h2>Heading</h2><p>Some <em>text</em></p>",
      authors: [authorRef(refs.bob), authorRef(refs.ann)],
      category: taxonomyRef(refs.news),
      tags: [taxonomyRef(refs.js), taxonomyRef(refs.react)],
      fields: {},
    },
  });

  it("reads a post by id, in the contract's read form", async () => {
    const res = await read(post.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(fullPost());
  });

  it("reads the same post by slug", async () => {
    const res = await read("full");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(fullPost());
  });

  it("format=markdown returns the content as markdown", async () => {
    const res = await read("full", "format=markdown");
    expect(res.body.post.content).toBe("## Heading\n\nSome _text_");
  });

  it("404 names the missing post", async () => {
    const res = await read("no-such-post");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Post not found", message: expect.stringContaining("no-such-post") });
  });

  describe("drafts", () => {
    let draft: Ref;
    beforeAll(async () => {
      draft = await suite.fixtures.post({ slug: "secret", categoryId: refs.news.id, status: "draft" });
    });

    it("are not found by default, even with a private key", async () => {
      expect((await read("secret")).status).toBe(404);
      expect((await read(draft.id, "", suite.ws.privateKey)).status).toBe(404);
    });

    it("are shown with status=all or status=draft and a private key", async () => {
      for (const query of ["status=all", "status=draft"]) {
        const res = await read("secret", query, suite.ws.privateKey);
        expect(res.status).toBe(200);
        expect(res.body.post).toMatchObject({ id: draft.id, slug: "secret", status: "draft" });
      }
    });

    it("status=draft does not find a published post", async () => {
      expect((await read("full", "status=draft", suite.ws.privateKey)).status).toBe(404);
      expect((await read("full", "status=all", suite.ws.privateKey)).status).toBe(200);
    });

    it("status=draft or status=all with a public key is a 403", async () => {
      const res = await read("secret", "status=all");
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "Forbidden",
        message: expect.stringMatching(/private/i),
        requiredScope: "drafts:read",
      });
    });
  });
});

describe("POST /v1/posts", () => {
  it("201 with the write shape; publishedAt defaults to now and the author to the workspace's first", async () => {
    const before = Date.now();
    const res = await create({ ...validBody("created"), tags: [refs.js.id] });
    const after = Date.now();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      post: {
        id: expect.any(String),
        slug: "created",
        title: "Title created",
        status: "published",
        featured: false,
        publishedAt: isoDate,
        createdAt: isoDate,
      },
    });
    const publishedAt = Date.parse(res.body.post.publishedAt);
    expect(publishedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(publishedAt).toBeLessThanOrEqual(after + 1000);

    const stored = await read(res.body.post.id);
    expect(stored.body).toEqual({
      post: {
        id: res.body.post.id,
        slug: "created",
        title: "Title created",
        status: "published",
        featured: false,
        coverImage: null,
        description: "A post",
        publishedAt: res.body.post.publishedAt,
        scheduled: false,
        updatedAt: isoDate,
        attribution: null,
        content: "<p>Hello</p>",
        authors: [authorRef(refs.ann)],
        category: taxonomyRef(refs.news),
        tags: [taxonomyRef(refs.js)],
        fields: {},
      },
    });
  });

  it("stores the given authors in the given order, tags, featured, coverImage and publishedAt", async () => {
    const res = await create({
      ...validBody("explicit"),
      status: "draft",
      authors: [refs.cid.id, refs.ann.id, refs.bob.id],
      tags: [refs.react.id, refs.js.id],
      featured: true,
      coverImage: "https://img.example/x.jpg",
      publishedAt: "2023-05-06T07:08:09.000Z",
      categoryId: refs.guides.id,
    });
    expect(res.status).toBe(201);
    expect(res.body.post).toEqual({
      id: expect.any(String),
      slug: "explicit",
      title: "Title explicit",
      status: "draft",
      featured: true,
      publishedAt: "2023-05-06T07:08:09.000Z",
      createdAt: isoDate,
    });
    const stored = (await read("explicit", "status=draft", suite.ws.privateKey)).body.post;
    expect(stored.authors.map((a: Ref) => a.slug)).toEqual(["cid", "ann", "bob"]);
    expect(stored.tags.map((t: Ref) => t.slug)).toEqual(["js", "react"]);
    expect(stored).toMatchObject({
      category: taxonomyRef(refs.guides),
      featured: true,
      coverImage: "https://img.example/x.jpg",
    });
  });

  it("sanitizes HTML: no scripts, no on* handlers, no javascript: URLs", async () => {
    const content =
      '<p onclick="steal()">Hi <a href="javascript:alert(1)">link</a> <a href="https://ok.example/">ok</a></p>' +
      '<script>alert(1)</script><img src="https://img.example/a.png" onerror="x()">';
    const res = await create({ ...validBody("dirty"), content });
    expect(res.status).toBe(201);
    const stored = (await read("dirty")).body.post.content as string;
    expect(stored).not.toMatch(/<script|onclick|onerror|javascript:/i);
    expect(stored).toContain('<a href="https://ok.example/">ok</a>');
    expect(stored).toContain('<img src="https://img.example/a.png"');
  });

  it('contentFormat "markdown" converts markdown to HTML', async () => {
    const res = await create({
      ...validBody("from-md"),
      content: "# Title\n\nSome **bold** text",
      contentFormat: "markdown",
    });
    expect(res.status).toBe(201);
    expect((await read("from-md")).body.post.content).toBe(
      "<h1>Title</h1>\n<p>Some <strong>bold</strong> text</p>\n",
    );
  });

  describe("validation", () => {
    const fieldsOf = (body: { details: { field: string }[] }) => body.details.map((d) => d.field).sort();

    it("names every missing required field", async () => {
      const res = await create({});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: expect.any(String),
        message: expect.any(String),
        details: expect.any(Array),
      });
      expect(fieldsOf(res.body)).toEqual(["categoryId", "content", "description", "slug", "status", "title"]);
    });

    it.each([
      ["status", { status: "archived" }],
      ["coverImage", { coverImage: "not a url" }],
      ["title", { title: "" }],
      ["featured", { featured: "yes" }],
      ["publishedAt", { publishedAt: "yesterday" }],
      ["tags", { tags: "js" }],
    ])("a bad %s is a 400 naming it", async (field, change) => {
      const res = await create({ ...validBody(`bad-${field}`), ...change });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual([field]);
    });

    it("a body that is not an object is a 400", async () => {
      for (const body of [[1, 2], "text", 42]) {
        const res = await create(JSON.stringify(body));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    });

    it("names each missing category, tag and author", async () => {
      const res = await create({
        ...validBody("orphan"),
        categoryId: "no-cat",
        tags: [refs.js.id, "no-tag"],
        authors: ["no-author", refs.ann.id],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: expect.any(String),
        message: expect.any(String),
        details: [
          { field: "categoryId", message: expect.stringContaining("no-cat") },
          { field: "tags", message: expect.stringContaining("no-tag") },
          { field: "authors", message: expect.stringContaining("no-author") },
        ],
      });
      expect((await read("orphan", "status=all", suite.ws.privateKey)).status).toBe(404);
    });

    it("a slug in use is a 409", async () => {
      await create(validBody("taken"));
      const res = await create(validBody("taken"));
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "Slug already in use", message: expect.any(String) });
    });
  });
});
