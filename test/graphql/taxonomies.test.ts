// Categories and tags: queries (by id or slug, page lists ordered by name, the published-post count,
// their own page of posts) and mutations (create, update, delete; the category delete rule).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { day, type GraphQLClient, graphqlClient, graphqlFixtures, isoDate } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let reader: GraphQLClient;
let writer: GraphQLClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  reader = graphqlClient(app, ws.publicKey);
  writer = graphqlClient(app, ws.privateKey);
  const f = graphqlFixtures(writer);
  // Created out of name order, so list order can only come from the name.
  const [travel, news, art] = [
    await f.category("travel"),
    await f.category("news", { description: "What happened" }),
    await f.category("art"),
  ];
  const [rust, js] = [await f.tag("rust"), await f.tag("js", { description: "JavaScript" })];
  Object.assign(ids, { travel: travel.id, news: news.id, art: art.id, rust: rust.id, js: js.id });
  for (const [slug, categoryId, tags, status, n] of [
    ["n1", news.id, [js.id], "PUBLISHED", 1],
    ["n2", news.id, [js.id, rust.id], "PUBLISHED", 3],
    ["n3", news.id, [js.id], "PUBLISHED", 2],
    ["n-draft", news.id, [js.id], "DRAFT", 4],
    ["t1", travel.id, [rust.id], "DRAFT", 5],
  ] as const) {
    ids[slug] = (await f.post({ slug, categoryId, tags: [...tags], status, publishedAt: day(n) })).id;
  }
});
afterAll(async () => app?.close());

const kinds = [
  { one: "category", many: "categories", type: "Category" },
  { one: "tag", many: "tags", type: "Tag" },
] as const;

describe("category(identifier) and tag(identifier)", () => {
  it("reads a category by id and by slug, with its count of published posts", async () => {
    const query = `query($id: String!) { category(identifier: $id) { id name slug description createdAt updatedAt count { posts } } }`;
    const expected = {
      id: ids.news,
      name: "News",
      slug: "news",
      description: "What happened",
      createdAt: isoDate,
      updatedAt: isoDate,
      count: { posts: 3 },
    };
    expect((await reader.ok(query, { id: ids.news })).category).toEqual(expected);
    expect((await reader.ok(query, { id: "news" })).category).toEqual(expected);
  });

  it("reads a tag by id and by slug, with its count of published posts", async () => {
    const query = `query($id: String!) { tag(identifier: $id) { id name slug description count { posts } } }`;
    const expected = { id: ids.js, name: "Js", slug: "js", description: "JavaScript", count: { posts: 3 } };
    expect((await reader.ok(query, { id: ids.js })).tag).toEqual(expected);
    expect((await reader.ok(query, { id: "js" })).tag).toEqual(expected);
  });

  it("counts only published posts (a category or tag with drafts only counts 0)", async () => {
    const data = await reader.ok(`{ travel: category(identifier: "travel") { count { posts } }
      rust: tag(identifier: "rust") { count { posts } } art: category(identifier: "art") { count { posts } } }`);
    expect(data).toEqual({
      travel: { count: { posts: 0 } },
      rust: { count: { posts: 1 } },
      art: { count: { posts: 0 } },
    });
  });

  for (const kind of kinds) {
    it(`answers NOT_FOUND for an unknown ${kind.one}`, async () => {
      const error = await reader.fails(`{ ${kind.one}(identifier: "missing") { id } }`);
      expect(error).toEqual({
        message: `${kind.type} "missing" does not exist in this workspace`,
        locations: [{ line: 1, column: 3 }],
        path: [kind.one],
        extensions: { code: "NOT_FOUND", http: { status: 404 }, resource: kind.type },
      });
    });
  }

  it("gives a page of the category's published posts, newest first", async () => {
    const query = `query($limit: Int, $page: Int) { category(identifier: "news") { posts(limit: $limit, page: $page) {
      items { slug } pagination { limit currentPage nextPage previousPage totalPages totalItems } } } }`;
    expect((await reader.ok(query, {})).category.posts).toEqual({
      items: [{ slug: "n2" }, { slug: "n3" }, { slug: "n1" }],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 1,
        totalItems: 3,
      },
    });
    expect((await reader.ok(query, { limit: 2, page: 2 })).category.posts).toEqual({
      items: [{ slug: "n1" }],
      pagination: { limit: 2, currentPage: 2, nextPage: null, previousPage: 1, totalPages: 2, totalItems: 3 },
    });
    const error = await reader.fails(query, { limit: 2, page: 3 });
    expect(error.extensions).toEqual({
      code: "PAGE_OUT_OF_RANGE",
      http: { status: 400 },
      requestedPage: 3,
      totalPages: 2,
    });
  });

  it("gives a page of the tag's published posts, newest first", async () => {
    const data = await reader.ok(
      `{ tag(identifier: "rust") { posts { items { slug } pagination { totalItems } } } }`,
    );
    expect(data.tag.posts).toEqual({ items: [{ slug: "n2" }], pagination: { totalItems: 1 } });
  });
});

describe("categories and tags lists", () => {
  it("lists categories by name with their counts", async () => {
    const data = await reader.ok(`{ categories { items { slug count { posts } }
      pagination { limit currentPage nextPage previousPage totalPages totalItems } } }`);
    expect(data.categories).toEqual({
      items: [
        { slug: "art", count: { posts: 0 } },
        { slug: "news", count: { posts: 3 } },
        { slug: "travel", count: { posts: 0 } },
      ],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 1,
        totalItems: 3,
      },
    });
  });

  it("lists tags by name with their counts", async () => {
    const data = await reader.ok("{ tags { items { slug count { posts } } pagination { totalItems } } }");
    expect(data.tags).toEqual({
      items: [
        { slug: "js", count: { posts: 3 } },
        { slug: "rust", count: { posts: 1 } },
      ],
      pagination: { totalItems: 2 },
    });
  });

  it("paginates: first, middle, last and past the last page", async () => {
    const query = `query($page: Int) { categories(limit: 1, page: $page) { items { slug }
      pagination { limit currentPage nextPage previousPage totalPages totalItems } } }`;
    expect((await reader.ok(query, { page: 1 })).categories).toEqual({
      items: [{ slug: "art" }],
      pagination: { limit: 1, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 3, totalItems: 3 },
    });
    expect((await reader.ok(query, { page: 2 })).categories).toEqual({
      items: [{ slug: "news" }],
      pagination: { limit: 1, currentPage: 2, nextPage: 3, previousPage: 1, totalPages: 3, totalItems: 3 },
    });
    expect((await reader.ok(query, { page: 3 })).categories).toEqual({
      items: [{ slug: "travel" }],
      pagination: { limit: 1, currentPage: 3, nextPage: null, previousPage: 2, totalPages: 3, totalItems: 3 },
    });
    const error = await reader.fails(query, { page: 4 });
    expect(error.extensions).toEqual({
      code: "PAGE_OUT_OF_RANGE",
      http: { status: 400 },
      requestedPage: 4,
      totalPages: 3,
    });
  });

  it("gives an empty workspace page 1 of 0, and PAGE_OUT_OF_RANGE for a later page", async () => {
    const empty = await app.workspace("Empty");
    const client = graphqlClient(app, empty.publicKey);
    const error = await client.fails("{ tags(page: 3) { items { id } } }");
    expect(error.extensions).toEqual({
      code: "PAGE_OUT_OF_RANGE",
      http: { status: 400 },
      requestedPage: 3,
      totalPages: 0,
    });
    const data = await client.ok(
      "{ tags(page: 1) { items { id } pagination { limit currentPage nextPage previousPage totalPages totalItems } } }",
    );
    expect(data.tags).toEqual({
      items: [],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 0,
        totalItems: 0,
      },
    });
  });
});

describe.each(kinds)("$one mutations", (kind) => {
  const FIELDS = "id name slug description";
  const create = `mutation($input: Create${kind.type}Input!) { create${kind.type}(input: $input) { ${FIELDS} } }`;
  const update = `mutation($id: String!, $input: Update${kind.type}Input!) { update${kind.type}(identifier: $id, input: $input) { ${FIELDS} } }`;
  const remove = `mutation($id: String!) { delete${kind.type}(identifier: $id) { id } }`;
  const key = (name: string) => `${kind.one}-${name}`;

  it(`create${kind.type} returns the record; description defaults to null`, async () => {
    const data = await writer.ok(create, { input: { name: "Fresh", slug: key("fresh") } });
    expect(data[`create${kind.type}`]).toEqual({
      id: expect.any(String),
      name: "Fresh",
      slug: key("fresh"),
      description: null,
    });
    const withDescription = await writer.ok(create, {
      input: { name: "Described", slug: key("described"), description: "Words" },
    });
    expect(withDescription[`create${kind.type}`]).toEqual({
      id: expect.any(String),
      name: "Described",
      slug: key("described"),
      description: "Words",
    });
  });

  it(`create${kind.type} answers CONFLICT for a slug in use`, async () => {
    await writer.ok(create, { input: { name: "Taken", slug: key("taken") } });
    const error = await writer.fails(create, { input: { name: "Again", slug: key("taken") } });
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

  it(`create${kind.type} names each invalid field`, async () => {
    const error = await writer.fails(create, { input: { name: "  ", slug: "Not Valid!" } });
    expect(error.message).toBe(`Invalid ${kind.one}`);
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "name", message: "Must be at least 1 character" },
        {
          field: "slug",
          message: "Must be 1-200 lowercase letters, digits, and single hyphens or underscores between them",
        },
      ],
    });
  });

  it(`update${kind.type} changes only the given fields; description null clears it`, async () => {
    const created = (
      await writer.ok(create, { input: { name: "Old", slug: key("old"), description: "Keep" } })
    )[`create${kind.type}`];
    const renamed = (await writer.ok(update, { id: created.id, input: { name: "New" } }))[
      `update${kind.type}`
    ];
    expect(renamed).toEqual({ ...created, name: "New" });
    const moved = (
      await writer.ok(update, { id: key("old"), input: { slug: key("moved"), description: null } })
    )[`update${kind.type}`];
    expect(moved).toEqual({ id: created.id, name: "New", slug: key("moved"), description: null });
  });

  it(`update${kind.type} answers CONFLICT, BAD_USER_INPUT and NOT_FOUND`, async () => {
    await writer.ok(create, { input: { name: "A", slug: key("a") } });
    const b = (await writer.ok(create, { input: { name: "B", slug: key("b") } }))[`create${kind.type}`];
    expect((await writer.fails(update, { id: b.id, input: { slug: key("a") } })).extensions?.code).toBe(
      "CONFLICT",
    );
    const invalid = await writer.fails(update, { id: b.id, input: { name: null, slug: "UPPER" } });
    expect(invalid.extensions?.details).toEqual([
      {
        field: "slug",
        message: "Must be 1-200 lowercase letters, digits, and single hyphens or underscores between them",
      },
      { field: "name", message: "Cannot be null" },
    ]);
    const missing = await writer.fails(update, { id: "missing", input: { name: "X" } });
    expect(missing.extensions).toEqual({ code: "NOT_FOUND", http: { status: 404 }, resource: kind.type });
  });

  it(`delete${kind.type} returns the id; the record is gone; a second delete is NOT_FOUND`, async () => {
    const created = (await writer.ok(create, { input: { name: "Doomed", slug: key("doomed") } }))[
      `create${kind.type}`
    ];
    expect(await writer.ok(remove, { id: key("doomed") })).toEqual({
      [`delete${kind.type}`]: { id: created.id },
    });
    expect((await reader.fails(`{ ${kind.one}(identifier: "${created.id}") { id } }`)).extensions?.code).toBe(
      "NOT_FOUND",
    );
    expect((await writer.fails(remove, { id: created.id })).extensions?.code).toBe("NOT_FOUND");
  });
});

describe("deleting categories and tags that are in use", () => {
  it("refuses to delete a category that still has posts (drafts included) with BAD_USER_INPUT", async () => {
    for (const [slug, count] of [
      ["news", "4 posts"],
      ["travel", "1 post"],
    ] as const) {
      const error = await writer.fails(`mutation { deleteCategory(identifier: "${slug}") { id } }`);
      expect(error.message).toBe(`Category "${slug}" still has ${count}`);
      expect(error.extensions).toEqual({
        code: "BAD_USER_INPUT",
        http: { status: 400 },
        details: [{ field: "identifier", message: "Move or delete the category's posts first" }],
      });
    }
    const still = await writer.ok('{ category(identifier: "travel") { slug } }');
    expect(still.category).toEqual({ slug: "travel" });
  });

  it("deletes a tag in use and removes it from its posts", async () => {
    const f = graphqlFixtures(writer);
    const tag = await f.tag("short-lived");
    const post = await f.post({ slug: "tagged", categoryId: ids.art as string, tags: [tag.id, ids.js] });
    expect(await writer.ok(`mutation { deleteTag(identifier: "short-lived") { id } }`)).toEqual({
      deleteTag: { id: tag.id },
    });
    const data = await writer.ok(`{ post(identifier: "${post.id}") { tags { slug } } }`);
    expect(data.post.tags).toEqual([{ slug: "js" }]);
  });
});
