// Post mutations: create, update, delete; the status transitions of the contract's state table;
// defaults (publishedAt, authors); set replacement of tags and authors; conflicts, missing references
// and validation; markdown input and sanitized HTML.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { day, type GraphQLClient, graphqlClient, graphqlFixtures, isoDate } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let writer: GraphQLClient;
let fixtures: ReturnType<typeof graphqlFixtures>;
const ids: Record<string, string> = {};

const SELECTION = `id slug title status featured coverImage description attribution publishedAt createdAt updatedAt
  content authors { slug } category { slug } tags { slug } fields`;
const CREATE = `mutation($input: CreatePostInput!) { createPost(input: $input) { ${SELECTION} } }`;
const UPDATE = `mutation($identifier: String!, $input: UpdatePostInput!) {
  updatePost(identifier: $identifier, input: $input) { ${SELECTION} }
}`;
const DELETE = "mutation($identifier: String!) { deletePost(identifier: $identifier) { id } }";

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  writer = graphqlClient(app, ws.privateKey);
  fixtures = graphqlFixtures(writer);
  const [ann, bob, cy] = [
    await fixtures.author("ann"),
    await fixtures.author("bob"),
    await fixtures.author("cy"),
  ];
  const [news, guides] = [await fixtures.category("news"), await fixtures.category("guides")];
  const [js, ts, rust] = [await fixtures.tag("js"), await fixtures.tag("ts"), await fixtures.tag("rust")];
  await fixtures.field({ key: "subtitle", type: "TEXT" });
  await fixtures.field({ key: "rating", type: "NUMBER" });
  Object.assign(ids, {
    ann: ann.id,
    bob: bob.id,
    cy: cy.id,
    news: news.id,
    guides: guides.id,
    js: js.id,
    ts: ts.id,
    rust: rust.id,
  });
});
afterAll(async () => app?.close());

function input(slug: string, extra: Record<string, unknown> = {}) {
  return {
    title: `Title of ${slug}`,
    content: `<p>Body of ${slug}</p>`,
    description: `About ${slug}`,
    slug,
    categoryId: ids.news,
    status: "PUBLISHED",
    ...extra,
  };
}

async function create(slug: string, extra: Record<string, unknown> = {}) {
  return (await writer.ok(CREATE, { input: input(slug, extra) })).createPost;
}

describe("createPost", () => {
  it("creates a post with the defaults: publishedAt now, first author, not featured, every field key null", async () => {
    const before = Date.now();
    const post = await create("defaults");
    const after = Date.now();
    expect(post).toEqual({
      id: expect.any(String),
      slug: "defaults",
      title: "Title of defaults",
      status: "PUBLISHED",
      featured: false,
      coverImage: null,
      description: "About defaults",
      attribution: null,
      publishedAt: isoDate,
      createdAt: isoDate,
      updatedAt: isoDate,
      content: "<p>Body of defaults</p>",
      authors: [{ slug: "ann" }],
      category: { slug: "news" },
      tags: [],
      fields: { subtitle: null, rating: null },
    });
    const publishedAt = Date.parse(post.publishedAt);
    expect(publishedAt).toBeGreaterThanOrEqual(before - 1);
    expect(publishedAt).toBeLessThanOrEqual(after + 1);
  });

  it("stores every given field; authors keep their order, tags are listed by name", async () => {
    const post = await create("everything", {
      status: "DRAFT",
      featured: true,
      coverImage: "https://cdn.example.com/cover.png",
      attribution: "Wire service",
      publishedAt: day(10),
      categoryId: ids.guides,
      tags: [ids.ts, ids.js],
      authors: [ids.cy, ids.ann],
      fields: { subtitle: "Sub", rating: 4.5 },
    });
    expect(post).toEqual({
      id: expect.any(String),
      slug: "everything",
      title: "Title of everything",
      status: "DRAFT",
      featured: true,
      coverImage: "https://cdn.example.com/cover.png",
      description: "About everything",
      attribution: "Wire service",
      publishedAt: day(10),
      createdAt: isoDate,
      updatedAt: isoDate,
      content: "<p>Body of everything</p>",
      authors: [{ slug: "cy" }, { slug: "ann" }],
      category: { slug: "guides" },
      tags: [{ slug: "js" }, { slug: "ts" }],
      fields: { subtitle: "Sub", rating: 4.5 },
    });
  });

  it("creates a post without authors when the workspace has none", async () => {
    const other = await app.workspace("No authors");
    const client = graphqlClient(app, other.privateKey);
    const category = await graphqlFixtures(client).category("misc");
    const data = await client.ok(CREATE, { input: { ...input("lonely"), categoryId: category.id } });
    expect(data.createPost.authors).toEqual([]);
  });

  it("turns markdown into sanitized HTML when contentFormat is MARKDOWN", async () => {
    const post = await create("markdown", {
      contentFormat: "MARKDOWN",
      content:
        "# Title\n\nSome *text* and [a link](https://example.com).\n\n<script>alert(1)</script>\n\n- one\n- two",
    });
    expect(post.content).toBe(
      '<h1>Title</h1>\n<p>Some <em>text</em> and <a href="https://example.com">a link</a>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n',
    );
  });

  it("stores HTML without scripts, event handlers or javascript: URLs", async () => {
    const post = await create("unsafe", {
      content:
        '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">bad</a> ' +
        '<a href="https://example.com" onmouseover="x()">good</a><img src="https://example.com/a.png" onerror="x()"></p>',
    });
    expect(post.content).toBe(
      '<p>Hi <a>bad</a> <a href="https://example.com">good</a><img src="https://example.com/a.png" /></p>',
    );
  });

  it("refuses content that is empty once unsafe markup is removed", async () => {
    const error = await writer.fails(CREATE, {
      input: input("only-script", { content: "<script>alert(1)</script>" }),
    });
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [{ field: "content", message: "Is empty once unsafe markup is removed" }],
    });
  });

  it("answers CONFLICT for a slug already used in the workspace, and allows it in another workspace", async () => {
    await create("taken");
    const error = await writer.fails(CREATE, { input: input("taken") });
    expect(error).toEqual({
      message: "This slug is already used by another record of this kind in the workspace",
      locations: [{ line: 1, column: 38 }],
      path: ["createPost"],
      extensions: {
        code: "CONFLICT",
        http: { status: 409 },
        details: [
          {
            field: "slug",
            message: "This slug is already used by another record of this kind in the workspace",
          },
        ],
      },
    });
    const other = await app.workspace("Other");
    const client = graphqlClient(app, other.privateKey);
    const category = await graphqlFixtures(client).category("news");
    const data = await client.ok(CREATE, { input: { ...input("taken"), categoryId: category.id } });
    expect(data.createPost.slug).toBe("taken");
  });

  it("names every missing category, tag and author id in details", async () => {
    const error = await writer.fails(CREATE, {
      input: input("dangling", {
        categoryId: "no-category",
        tags: [ids.js, "no-tag-1", "no-tag-2"],
        authors: ["no-author", ids.ann],
      }),
    });
    expect(error.message).toBe("Referenced records do not exist");
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "categoryId", message: 'Category "no-category" does not exist' },
        { field: "tags", message: 'Tag "no-tag-1" does not exist' },
        { field: "tags", message: 'Tag "no-tag-2" does not exist' },
        { field: "authors", message: 'Author "no-author" does not exist' },
      ],
    });
  });

  it("names every invalid input field in details", async () => {
    const error = await writer.fails(CREATE, {
      input: input("Not A Slug", {
        title: "   ",
        coverImage: "javascript:alert(1)",
        fields: { nope: 1, rating: "five" },
      }),
    });
    expect(error.message).toBe("Invalid post");
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "title", message: "Must be at least 1 character" },
        {
          field: "slug",
          message: "Must be 1-200 lowercase letters, digits, and single hyphens or underscores between them",
        },
        { field: "coverImage", message: "Must be an absolute http(s) URL" },
        { field: "fields.nope", message: 'Unknown custom field "nope"' },
        { field: "fields.rating", message: "Must be a finite number" },
      ],
    });
  });

  it("refuses an invalid publishedAt", async () => {
    const result = await app.graphql(ws.privateKey, CREATE, {
      input: input("bad-date", { publishedAt: "yesterday" }),
    });
    expect(result.errors?.[0]?.message).toContain("Expected an ISO 8601 date-time string");
    expect(result.data).toBeUndefined();
  });
});

describe("updatePost", () => {
  it("changes only the given fields and moves updatedAt", async () => {
    const created = await create("partial", {
      tags: [ids.js],
      authors: [ids.bob],
      publishedAt: day(1),
      attribution: "AP",
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = (await writer.ok(UPDATE, { identifier: created.id, input: { title: "New title" } }))
      .updatePost;
    expect(updated).toEqual({ ...created, title: "New title", updatedAt: isoDate });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
  });

  it("finds the post by slug as well as by id", async () => {
    await create("by-slug");
    const updated = (await writer.ok(UPDATE, { identifier: "by-slug", input: { description: "Changed" } }))
      .updatePost;
    expect(updated.description).toBe("Changed");
  });

  it("moves a post published → draft → published, each time moving updatedAt", async () => {
    const created = await create("transitions", { publishedAt: day(2) });
    const visible = async () => {
      const data = await writer.ok('{ posts(categories: ["news"], limit: 100) { items { slug } } }');
      return data.posts.items.some((post: { slug: string }) => post.slug === "transitions");
    };
    expect(await visible()).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const draft = (await writer.ok(UPDATE, { identifier: created.id, input: { status: "DRAFT" } }))
      .updatePost;
    expect(draft).toEqual({ ...created, status: "DRAFT", updatedAt: isoDate });
    expect(Date.parse(draft.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(await visible()).toBe(false);
    const asDraft = await writer.ok(
      '{ post(identifier: "transitions", status: DRAFT) { status publishedAt } }',
    );
    expect(asDraft.post).toEqual({ status: "DRAFT", publishedAt: day(2) });

    await new Promise((resolve) => setTimeout(resolve, 5));
    const published = (await writer.ok(UPDATE, { identifier: created.id, input: { status: "PUBLISHED" } }))
      .updatePost;
    expect(published.status).toBe("PUBLISHED");
    expect(Date.parse(published.updatedAt)).toBeGreaterThan(Date.parse(draft.updatedAt));
    expect(await visible()).toBe(true);
  });

  it("replaces the whole set of tags, and clears it with an empty list", async () => {
    const created = await create("retag", { tags: [ids.js, ids.ts] });
    const retagged = (await writer.ok(UPDATE, { identifier: created.id, input: { tags: [ids.rust] } }))
      .updatePost;
    expect(retagged.tags).toEqual([{ slug: "rust" }]);
    const cleared = (await writer.ok(UPDATE, { identifier: created.id, input: { tags: [] } })).updatePost;
    expect(cleared.tags).toEqual([]);
  });

  it("replaces the whole list of authors in the new order", async () => {
    const created = await create("reauthor", { authors: [ids.ann, ids.bob] });
    const updated = (
      await writer.ok(UPDATE, { identifier: created.id, input: { authors: [ids.cy, ids.ann] } })
    ).updatePost;
    expect(updated.authors).toEqual([{ slug: "cy" }, { slug: "ann" }]);
    const untouched = (await writer.ok(UPDATE, { identifier: created.id, input: { title: "Same authors" } }))
      .updatePost;
    expect(untouched.authors).toEqual([{ slug: "cy" }, { slug: "ann" }]);
  });

  it("sets and clears custom field values, and clears nullable fields with null", async () => {
    const created = await create("values", {
      fields: { subtitle: "One" },
      coverImage: "https://cdn.example.com/x.png",
    });
    const set = (await writer.ok(UPDATE, { identifier: created.id, input: { fields: { rating: 3 } } }))
      .updatePost;
    expect(set.fields).toEqual({ subtitle: "One", rating: 3 });
    const cleared = (
      await writer.ok(UPDATE, {
        identifier: created.id,
        input: { fields: { subtitle: null }, coverImage: null },
      })
    ).updatePost;
    expect(cleared.fields).toEqual({ subtitle: null, rating: 3 });
    expect(cleared.coverImage).toBeNull();
  });

  it("converts markdown content when contentFormat is MARKDOWN", async () => {
    const created = await create("md-update");
    const updated = (
      await writer.ok(UPDATE, {
        identifier: created.id,
        input: { content: "**bold** move", contentFormat: "MARKDOWN" },
      })
    ).updatePost;
    expect(updated.content).toBe("<p><strong>bold</strong> move</p>\n");
  });

  it("keeps its own slug without a conflict, and answers CONFLICT for another post's slug", async () => {
    const first = await create("first-slug");
    await create("second-slug");
    const same = (await writer.ok(UPDATE, { identifier: first.id, input: { slug: "first-slug" } }))
      .updatePost;
    expect(same.slug).toBe("first-slug");
    const error = await writer.fails(UPDATE, { identifier: first.id, input: { slug: "second-slug" } });
    expect(error.extensions).toEqual({
      code: "CONFLICT",
      http: { status: 409 },
      details: [
        {
          field: "slug",
          message: "This slug is already used by another record of this kind in the workspace",
        },
      ],
    });
  });

  it("names missing tags and authors in details", async () => {
    const created = await create("dangling-update");
    const error = await writer.fails(UPDATE, {
      identifier: created.id,
      input: { categoryId: "gone", tags: ["gone-tag"], authors: [ids.ann, "gone-author"] },
    });
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "categoryId", message: 'Category "gone" does not exist' },
        { field: "tags", message: 'Tag "gone-tag" does not exist' },
        { field: "authors", message: 'Author "gone-author" does not exist' },
      ],
    });
  });

  it("refuses null for required fields", async () => {
    const created = await create("nulls");
    const error = await writer.fails(UPDATE, {
      identifier: created.id,
      input: { title: null, slug: null, status: null },
    });
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "title", message: "Cannot be null" },
        { field: "slug", message: "Cannot be null" },
        { field: "status", message: "Cannot be null" },
      ],
    });
  });

  it("answers NOT_FOUND for an unknown post", async () => {
    const error = await writer.fails(UPDATE, { identifier: "missing", input: { title: "x" } });
    expect(error.extensions).toEqual({ code: "NOT_FOUND", http: { status: 404 }, resource: "Post" });
  });
});

describe("deletePost", () => {
  it("deletes by id and returns the id; the post is gone", async () => {
    const created = await create("doomed");
    expect(await writer.ok(DELETE, { identifier: created.id })).toEqual({ deletePost: { id: created.id } });
    const error = await writer.fails('{ post(identifier: "doomed", status: ALL) { id } }');
    expect(error.extensions?.code).toBe("NOT_FOUND");
  });

  it("deletes by slug, drafts included", async () => {
    const created = await create("doomed-draft", { status: "DRAFT" });
    expect(await writer.ok(DELETE, { identifier: "doomed-draft" })).toEqual({
      deletePost: { id: created.id },
    });
  });

  it("answers NOT_FOUND for an unknown or already deleted post", async () => {
    const created = await create("twice");
    await writer.ok(DELETE, { identifier: created.id });
    const error = await writer.fails(DELETE, { identifier: created.id });
    expect(error).toEqual({
      message: `Post "${created.id}" does not exist in this workspace`,
      locations: [{ line: 1, column: 34 }],
      path: ["deletePost"],
      extensions: { code: "NOT_FOUND", http: { status: 404 }, resource: "Post" },
    });
  });
});
