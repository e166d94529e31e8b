// Post queries: by id or slug, the page-based `posts` list with every filter, search, order and the
// pagination numbers, the Relay connection, and everything a post exposes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { day, type GraphQLClient, graphqlClient, graphqlFixtures, isoDate } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let reader: GraphQLClient;
let writer: GraphQLClient;
const ids: Record<string, string> = {};

const ALPHA_HTML =
  '<h2>Intro</h2><p>Hello <strong>world</strong> and <a href="https://example.com/x">a link</a>.</p><ul><li>one</li><li>two</li></ul>';

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  reader = graphqlClient(app, ws.publicKey);
  writer = graphqlClient(app, ws.privateKey);
  const f = graphqlFixtures(writer);
  // Authors created in this order: ann is the workspace's first author (the default of posts).
  const [ann, bob, cy] = [await f.author("ann"), await f.author("bob"), await f.author("cy")];
  const [news, guides] = [
    await f.category("news", { description: "What happened" }),
    await f.category("guides"),
  ];
  const [js, ts, rust] = [await f.tag("js"), await f.tag("ts"), await f.tag("rust")];
  await f.field({ key: "subtitle", type: "TEXT" });
  await f.field({ key: "rating", type: "NUMBER" });
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
  // Created out of date order, so any order seen can only come from publishedAt.
  const posts = [
    {
      slug: "gamma",
      categoryId: news.id,
      tags: [rust.id],
      authors: [cy.id],
      publishedAt: day(3),
      attribution: "Reuters",
    },
    {
      slug: "alpha",
      categoryId: news.id,
      tags: [js.id],
      authors: [bob.id, ann.id],
      featured: true,
      publishedAt: day(1),
      content: ALPHA_HTML,
      coverImage: "https://cdn.example.com/alpha.png",
      fields: { subtitle: "First", rating: 5 },
    },
    { slug: "epsilon", categoryId: guides.id, authors: [bob.id], featured: true, publishedAt: day(5) },
    { slug: "beta", categoryId: guides.id, tags: [ts.id, js.id], publishedAt: day(2) },
    { slug: "delta", categoryId: guides.id, tags: [js.id], status: "DRAFT", publishedAt: day(4) },
  ];
  for (const post of posts) ids[post.slug] = (await f.post(post)).id;
});
afterAll(async () => app?.close());

const LIST = `query List($limit: Int, $page: Int, $order: SortOrder, $categories: [String!], $excludeCategories: [String!],
  $tags: [String!], $excludeTags: [String!], $query: String, $featured: Boolean, $status: PostStatusFilter) {
  posts(limit: $limit, page: $page, order: $order, categories: $categories, excludeCategories: $excludeCategories,
    tags: $tags, excludeTags: $excludeTags, query: $query, featured: $featured, status: $status) {
    items { slug }
    pagination { limit currentPage nextPage previousPage totalPages totalItems }
  }
}`;

async function slugs(variables: Record<string, unknown>, client = reader): Promise<string[]> {
  const data = await client.ok(LIST, variables);
  return data.posts.items.map((post: { slug: string }) => post.slug);
}

describe("post(identifier)", () => {
  const FULL = `query($identifier: String!, $status: PostStatusFilter) {
    post(identifier: $identifier, status: $status) {
      id slug title status featured coverImage description attribution publishedAt createdAt updatedAt content
      authors { id name slug }
      category { id name slug description }
      tags { id name slug description }
      fields
      fieldEntries { key type value text number boolean values }
    }
  }`;

  it("reads a post by id with everything it exposes", async () => {
    const data = await reader.ok(FULL, { identifier: ids.alpha });
    expect(data.post).toEqual({
      id: ids.alpha,
      slug: "alpha",
      title: "Alpha",
      status: "PUBLISHED",
      featured: true,
      coverImage: "https://cdn.example.com/alpha.png",
      description: "About alpha",
      attribution: null,
      publishedAt: day(1),
      createdAt: isoDate,
      updatedAt: isoDate,
      content: ALPHA_HTML,
      authors: [
        { id: ids.bob, name: "Bob", slug: "bob" },
        { id: ids.ann, name: "Ann", slug: "ann" },
      ],
      category: { id: ids.news, name: "News", slug: "news", description: "What happened" },
      tags: [{ id: ids.js, name: "Js", slug: "js", description: null }],
      fields: { subtitle: "First", rating: 5 },
      fieldEntries: [
        {
          key: "subtitle",
          type: "TEXT",
          value: "First",
          text: "First",
          number: null,
          boolean: null,
          values: null,
        },
        { key: "rating", type: "NUMBER", value: 5, text: null, number: 5, boolean: null, values: null },
      ],
    });
  });

  it("reads the same post by slug", async () => {
    const [byId, bySlug] = [
      await reader.ok(FULL, { identifier: ids.alpha }),
      await reader.ok(FULL, { identifier: "alpha" }),
    ];
    expect(bySlug).toEqual(byId);
  });

  it("gives every custom field key, null where a post has no value", async () => {
    const data = await reader.ok('{ post(identifier: "beta") { fields fieldEntries { key value } } }');
    expect(data.post).toEqual({
      fields: { subtitle: null, rating: null },
      fieldEntries: [
        { key: "subtitle", value: null },
        { key: "rating", value: null },
      ],
    });
  });

  it("keeps authors in the order they were given, not by name", async () => {
    const data = await reader.ok('{ post(identifier: "alpha") { authors { slug } } }');
    expect(data.post.authors).toEqual([{ slug: "bob" }, { slug: "ann" }]);
  });

  it("defaults authors to the workspace's first author", async () => {
    const data = await reader.ok('{ post(identifier: "beta") { authors { slug } } }');
    expect(data.post.authors).toEqual([{ slug: "ann" }]);
  });

  it("lists tags by name", async () => {
    const data = await reader.ok('{ post(identifier: "beta") { tags { slug } } }');
    expect(data.post.tags).toEqual([{ slug: "js" }, { slug: "ts" }]);
  });

  it("exposes attribution", async () => {
    const data = await reader.ok('{ post(identifier: "gamma") { attribution } }');
    expect(data.post).toEqual({ attribution: "Reuters" });
  });

  it("gives content as HTML by default and as markdown (turndown) with format: MARKDOWN", async () => {
    const data = await reader.ok(
      `{ post(identifier: "alpha") { html: content markdown: content(format: MARKDOWN) } }`,
    );
    expect(data.post).toEqual({
      html: ALPHA_HTML,
      markdown: "## Intro\n\nHello **world** and [a link](https://example.com/x).\n\n-   one\n-   two",
    });
  });

  it("gives the category's and tags' published post counts", async () => {
    const data = await reader.ok(
      '{ post(identifier: "beta") { category { count { posts } } tags { slug count { posts } } } }',
    );
    // guides: beta and epsilon (delta is a draft); js: alpha and beta (not delta); ts: beta.
    expect(data.post).toEqual({
      category: { count: { posts: 2 } },
      tags: [
        { slug: "js", count: { posts: 2 } },
        { slug: "ts", count: { posts: 1 } },
      ],
    });
  });

  it("does not find a draft unless asked for drafts", async () => {
    const error = await writer.fails('{ post(identifier: "delta") { slug } }');
    expect(error).toEqual({
      message: 'Post "delta" does not exist in this workspace',
      locations: [{ line: 1, column: 3 }],
      path: ["post"],
      extensions: { code: "NOT_FOUND", http: { status: 404 }, resource: "Post" },
    });
  });

  it("finds a draft with status DRAFT or ALL (private key), and not with DRAFT when it is published", async () => {
    const query = 'query($s: PostStatusFilter) { post(identifier: "delta", status: $s) { slug status } }';
    expect((await writer.ok(query, { s: "DRAFT" })).post).toEqual({ slug: "delta", status: "DRAFT" });
    expect((await writer.ok(query, { s: "ALL" })).post).toEqual({ slug: "delta", status: "DRAFT" });
    const published = await writer.fails('{ post(identifier: "alpha", status: DRAFT) { slug } }');
    expect(published.extensions?.code).toBe("NOT_FOUND");
  });

  it("answers NOT_FOUND for an unknown id or slug", async () => {
    const error = await reader.fails('{ post(identifier: "no-such-post") { id } }');
    expect(error.extensions).toEqual({ code: "NOT_FOUND", http: { status: 404 }, resource: "Post" });
    expect(error.message).toBe('Post "no-such-post" does not exist in this workspace');
  });
});

describe("posts: visibility and order", () => {
  it("lists published posts only, newest publishedAt first", async () => {
    const data = await reader.ok(LIST, {});
    expect(data.posts).toEqual({
      items: [{ slug: "epsilon" }, { slug: "gamma" }, { slug: "beta" }, { slug: "alpha" }],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 1,
        totalItems: 4,
      },
    });
  });

  it("orders by publishedAt ascending with order: ASC and descending with order: DESC", async () => {
    expect(await slugs({ order: "ASC" })).toEqual(["alpha", "beta", "gamma", "epsilon"]);
    expect(await slugs({ order: "DESC" })).toEqual(["epsilon", "gamma", "beta", "alpha"]);
  });

  it("lists drafts only with status: DRAFT, and everything with status: ALL (private key)", async () => {
    expect(await slugs({ status: "DRAFT" }, writer)).toEqual(["delta"]);
    expect(await slugs({ status: "ALL" }, writer)).toEqual(["epsilon", "delta", "gamma", "beta", "alpha"]);
    expect(await slugs({ status: "PUBLISHED" }, writer)).toEqual(["epsilon", "gamma", "beta", "alpha"]);
  });

  it("gives each list item the same fields as a single read", async () => {
    const data = await reader.ok(`{ posts(categories: ["news"], tags: ["js"]) { items {
      id slug title status featured coverImage description attribution publishedAt updatedAt
      authors { slug } category { slug } tags { slug } fields
    } } }`);
    expect(data.posts.items).toEqual([
      {
        id: ids.alpha,
        slug: "alpha",
        title: "Alpha",
        status: "PUBLISHED",
        featured: true,
        coverImage: "https://cdn.example.com/alpha.png",
        description: "About alpha",
        attribution: null,
        publishedAt: day(1),
        updatedAt: isoDate,
        authors: [{ slug: "bob" }, { slug: "ann" }],
        category: { slug: "news" },
        tags: [{ slug: "js" }],
        fields: { subtitle: "First", rating: 5 },
      },
    ]);
  });
});

describe("posts: filters", () => {
  it("categories: posts in any of the given category slugs", async () => {
    expect(await slugs({ categories: ["news"] })).toEqual(["gamma", "alpha"]);
    expect(await slugs({ categories: ["news", "guides"] })).toEqual(["epsilon", "gamma", "beta", "alpha"]);
  });

  it("excludeCategories: posts outside the given categories", async () => {
    expect(await slugs({ excludeCategories: ["news"] })).toEqual(["epsilon", "beta"]);
    expect(await slugs({ excludeCategories: ["news", "guides"] })).toEqual([]);
  });

  it("tags: posts with any of the given tags", async () => {
    expect(await slugs({ tags: ["js"] })).toEqual(["beta", "alpha"]);
    expect(await slugs({ tags: ["js", "rust"] })).toEqual(["gamma", "beta", "alpha"]);
  });

  it("excludeTags: posts without any of the given tags (posts without tags included)", async () => {
    expect(await slugs({ excludeTags: ["js"] })).toEqual(["epsilon", "gamma"]);
    expect(await slugs({ excludeTags: ["js", "rust"] })).toEqual(["epsilon"]);
  });

  it("featured: true or false", async () => {
    expect(await slugs({ featured: true })).toEqual(["epsilon", "alpha"]);
    expect(await slugs({ featured: false })).toEqual(["gamma", "beta"]);
  });

  it("combines filters with AND", async () => {
    expect(await slugs({ tags: ["js"], excludeTags: ["ts"] })).toEqual(["alpha"]);
    expect(await slugs({ categories: ["guides"], tags: ["js"] })).toEqual(["beta"]);
    expect(await slugs({ categories: ["guides"], featured: true, order: "ASC" })).toEqual(["epsilon"]);
    expect(await slugs({ tags: ["js"], status: "ALL", order: "ASC" }, writer)).toEqual([
      "alpha",
      "beta",
      "delta",
    ]);
    expect(await slugs({ excludeCategories: ["guides"], featured: false })).toEqual(["gamma"]);
  });

  it("an unknown slug matches nothing; an empty list filters nothing", async () => {
    const data = await reader.ok(LIST, { categories: ["nope"] });
    expect(data.posts).toEqual({
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
    expect(await slugs({ tags: [] })).toEqual(["epsilon", "gamma", "beta", "alpha"]);
  });
});

describe("posts: pagination numbers", () => {
  it("first, middle and last page", async () => {
    const page = async (limit: number, p: number) => (await reader.ok(LIST, { limit, page: p })).posts;
    expect(await page(1, 1)).toEqual({
      items: [{ slug: "epsilon" }],
      pagination: { limit: 1, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 4, totalItems: 4 },
    });
    expect(await page(1, 2)).toEqual({
      items: [{ slug: "gamma" }],
      pagination: { limit: 1, currentPage: 2, nextPage: 3, previousPage: 1, totalPages: 4, totalItems: 4 },
    });
    expect(await page(1, 4)).toEqual({
      items: [{ slug: "alpha" }],
      pagination: { limit: 1, currentPage: 4, nextPage: null, previousPage: 3, totalPages: 4, totalItems: 4 },
    });
    expect(await page(3, 2)).toEqual({
      items: [{ slug: "alpha" }],
      pagination: { limit: 3, currentPage: 2, nextPage: null, previousPage: 1, totalPages: 2, totalItems: 4 },
    });
  });

  it("a page past the last one is PAGE_OUT_OF_RANGE with the page numbers", async () => {
    const error = await reader.fails(LIST, { limit: 2, page: 3 });
    expect(error).toEqual({
      message: "Page 3 does not exist; there are 2 pages",
      locations: [{ line: 3, column: 3 }],
      path: ["posts"],
      extensions: { code: "PAGE_OUT_OF_RANGE", http: { status: 400 }, requestedPage: 3, totalPages: 2 },
    });
  });

  it("page 1 of an empty list is an empty page: 1 of 0", async () => {
    const data = await reader.ok(LIST, { categories: ["nope"], page: 1 });
    expect(data.posts).toEqual({
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

  it("any later page of an empty list is past the last: PAGE_OUT_OF_RANGE, as with items", async () => {
    for (const page of [2, 5]) {
      const error = await reader.fails(LIST, { categories: ["nope"], page });
      expect(error).toEqual({
        message: `Page ${page} does not exist; there are 0 pages`,
        locations: [{ line: 3, column: 3 }],
        path: ["posts"],
        extensions: { code: "PAGE_OUT_OF_RANGE", http: { status: 400 }, requestedPage: page, totalPages: 0 },
      });
    }
  });

  it("limit must be 1-100 and page at least 1, each named in details", async () => {
    for (const limit of [0, 101]) {
      const error = await reader.fails(LIST, { limit });
      expect(error.extensions).toEqual({
        code: "BAD_USER_INPUT",
        http: { status: 400 },
        details: [{ field: "limit", message: "Must be between 1 and 100" }],
      });
    }
    const both = await reader.fails(LIST, { limit: -1, page: 0 });
    expect(both.extensions?.details).toEqual([
      { field: "limit", message: "Must be between 1 and 100" },
      { field: "page", message: "Must be 1 or greater" },
    ]);
  });
});

describe("posts: full-text query", () => {
  let search: GraphQLClient;
  let editor: GraphQLClient;
  beforeAll(async () => {
    // A workspace of its own, so the rank order is not mixed with the posts above.
    const other = await app.workspace("Search");
    search = graphqlClient(app, other.publicKey);
    editor = graphqlClient(app, other.privateKey);
    const f = graphqlFixtures(editor);
    const category = await f.category("notes");
    await f.post({
      slug: "tuning",
      title: "Postgres tuning",
      content: "<p>Shared buffers and work memory.</p>",
      categoryId: category.id,
      publishedAt: day(1),
    });
    await f.post({
      slug: "storage",
      title: "Storage notes",
      content: "<p>We keep everything in postgres.</p>",
      categoryId: category.id,
      publishedAt: day(3),
    });
    await f.post({
      slug: "indexes",
      title: "Indexing postgres tables",
      content: "<p>Postgres indexes and postgres plans.</p>",
      categoryId: category.id,
      publishedAt: day(2),
    });
    await f.post({
      slug: "cooking",
      title: "Cooking",
      content: "<p>Nothing about databases.</p>",
      categoryId: category.id,
      publishedAt: day(4),
    });
    await f.post({
      slug: "draft",
      title: "Postgres draft",
      categoryId: category.id,
      status: "DRAFT",
      publishedAt: day(5),
    });
  });

  const slugsOf = async (variables: Record<string, unknown>) =>
    ((await search.ok(LIST, variables)).posts.items as { slug: string }[]).map((post) => post.slug);

  it("matches title and content with PostgreSQL text search (stemming, any case), published posts only", async () => {
    expect((await slugsOf({ query: "POSTGRES", order: "DESC" })).sort()).toEqual([
      "indexes",
      "storage",
      "tuning",
    ]);
    // Stemming: "indexing" and "indexes" share the stem "index".
    expect(await slugsOf({ query: "index" })).toEqual(["indexes"]);
    expect(await slugsOf({ query: "buffer" })).toEqual(["tuning"]);
    expect(await slugsOf({ query: "kubernetes" })).toEqual([]);
  });

  it("ranks matches best first: title matches (weight A) above content-only matches", async () => {
    expect(await slugsOf({ query: "postgres" })).toEqual(["indexes", "tuning", "storage"]);
  });

  it("sorts matches by publishedAt when an order is given", async () => {
    expect(await slugsOf({ query: "postgres", order: "DESC" })).toEqual(["storage", "indexes", "tuning"]);
    expect(await slugsOf({ query: "postgres", order: "ASC" })).toEqual(["tuning", "indexes", "storage"]);
  });

  it("paginates ranked results", async () => {
    const page = async (p: number) => (await search.ok(LIST, { query: "postgres", limit: 2, page: p })).posts;
    expect(await page(1)).toEqual({
      items: [{ slug: "indexes" }, { slug: "tuning" }],
      pagination: { limit: 2, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 2, totalItems: 3 },
    });
    expect(await page(2)).toEqual({
      items: [{ slug: "storage" }],
      pagination: { limit: 2, currentPage: 2, nextPage: null, previousPage: 1, totalPages: 2, totalItems: 3 },
    });
    const error = await search.fails(LIST, { query: "postgres", limit: 2, page: 3 });
    expect(error.extensions).toEqual({
      code: "PAGE_OUT_OF_RANGE",
      http: { status: 400 },
      requestedPage: 3,
      totalPages: 2,
    });
  });

  it("combines the query with the other filters", async () => {
    expect(await slugsOf({ query: "postgres", excludeCategories: ["notes"] })).toEqual([]);
    expect(await slugsOf({ query: "postgres", categories: ["notes"], order: "ASC" })).toEqual([
      "tuning",
      "indexes",
      "storage",
    ]);
  });

  it("treats search syntax as text: quotes, operators and punctuation never fail", async () => {
    expect(await slugsOf({ query: '"postgres tuning"' })).toEqual(["tuning"]);
    expect(await slugsOf({ query: "postgres -indexes", order: "ASC" })).toEqual(["tuning", "storage"]);
    expect(await slugsOf({ query: '\'); DROP TABLE "Post"; --' })).toEqual([]);
    expect(await slugsOf({ query: "   " })).toEqual(["cooking", "storage", "indexes", "tuning"]);
  });

  it("follows edits: a new title or body is found and the old one no longer; other edits keep both", async () => {
    const edit = (input: string) =>
      editor.ok(`mutation { updatePost(identifier: "cooking", input: ${input}) { id } }`);
    await edit(`{ title: "Baking sourdough" }`);
    expect(await slugsOf({ query: "sourdough" })).toEqual(["cooking"]);
    expect(await slugsOf({ query: "cooking" })).toEqual([]);
    await edit(`{ content: "<p>Rye flour and patience.</p>" }`);
    expect(await slugsOf({ query: "rye" })).toEqual(["cooking"]);
    expect(await slugsOf({ query: "databases" })).toEqual([]);
    // Neither text changes (the vector is then left as it is, migration 20261127100000): still found by both.
    await edit(`{ featured: true, description: "Bread", title: "Baking sourdough" }`);
    expect(await slugsOf({ query: "sourdough rye" })).toEqual(["cooking"]);
  });
});

describe("postsConnection (Relay cursors)", () => {
  const CONNECTION = `query($first: Int, $after: String, $tags: [String!], $order: SortOrder) {
    postsConnection(first: $first, after: $after, tags: $tags, order: $order) {
      totalCount
      edges { cursor node { slug } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;

  it("pages forward with first/after and gives totalCount", async () => {
    const first = (await reader.ok(CONNECTION, { first: 3 })).postsConnection;
    expect(first).toEqual({
      totalCount: 4,
      edges: [
        { cursor: expect.any(String), node: { slug: "epsilon" } },
        { cursor: expect.any(String), node: { slug: "gamma" } },
        { cursor: expect.any(String), node: { slug: "beta" } },
      ],
      pageInfo: {
        hasNextPage: true,
        hasPreviousPage: false,
        startCursor: expect.any(String),
        endCursor: expect.any(String),
      },
    });
    expect(first.pageInfo.endCursor).toBe(first.edges[2].cursor);
    const second = (await reader.ok(CONNECTION, { first: 3, after: first.pageInfo.endCursor }))
      .postsConnection;
    expect(second).toEqual({
      totalCount: 4,
      edges: [{ cursor: expect.any(String), node: { slug: "alpha" } }],
      pageInfo: {
        hasNextPage: false,
        hasPreviousPage: true,
        startCursor: second.edges[0].cursor,
        endCursor: second.edges[0].cursor,
      },
    });
  });

  it("applies the list filters and order to edges and totalCount", async () => {
    const data = (await reader.ok(CONNECTION, { tags: ["js"], order: "ASC" })).postsConnection;
    expect(data.totalCount).toBe(2);
    expect(data.edges.map((edge: { node: { slug: string } }) => edge.node.slug)).toEqual(["alpha", "beta"]);
    expect(data.pageInfo.hasNextPage).toBe(false);
  });

  it("refuses drafts to a public key", async () => {
    const error = await reader.fails(
      "{ postsConnection(status: DRAFT) { totalCount edges { node { slug } } } }",
    );
    expect(error.extensions?.code).toBe("FORBIDDEN");
  });

  it("answers BAD_USER_INPUT for a malformed cursor or a negative page size", async () => {
    for (const variables of [{ first: 2, after: "not-a-cursor" }, { first: -1 }]) {
      const error = await reader.fails(CONNECTION, variables);
      expect(error.extensions).toEqual({ code: "BAD_USER_INPUT", http: { status: 400 }, details: [] });
      expect(error.message).not.toBe("Unexpected error.");
    }
  });
});
