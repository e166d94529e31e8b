// No N+1: listing posts with their authors, category, tags (each with counts) and custom fields
// issues the same small number of SQL statements for 10 posts as for 100, through /graphql and
// through the REST list route. Statements are collected with startTestApp({ onQuery }): Prisma's and
// the raw ones (full-text search, the post read model of src/graphql/post-rows.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logHeadExpression } from "../../src/content/changes/change-log.ts";
import { ONE_STATEMENT_PAGE_SIZES } from "../../src/graphql/read-model/post-rows.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

/** Statements per request, not counting the API key lookup. */
const MAX_STATEMENTS = 6;
const POSTS = 100;

let app: TestApp;
let ws: TestWorkspace;
let recording: string[] | null = null;

beforeAll(async () => {
  app = await startTestApp({ onQuery: (sql) => recording?.push(sql) });
  ws = await app.workspace("Statements");
  await seed(ws.id);
}, 120_000);
afterAll(async () => app?.close());

async function seed(workspaceId: string) {
  const prisma = app.db.prisma;
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const categories = range(4).map((n) => ({
    id: `cat-${n}`,
    workspaceId,
    name: `Category ${n}`,
    slug: `category-${n}`,
  }));
  const tags = range(6).map((n) => ({ id: `tag-${n}`, workspaceId, name: `Tag ${n}`, slug: `tag-${n}` }));
  const authors = range(4).map((n) => ({
    id: `author-${n}`,
    workspaceId,
    name: `Author ${n}`,
    slug: `author-${n}`,
    socials: [{ platform: "github", url: `https://github.com/author-${n}` }],
  }));
  await prisma.category.createMany({ data: categories });
  await prisma.tag.createMany({ data: tags });
  await prisma.author.createMany({ data: authors });
  const subtitle = await prisma.field.create({
    data: { workspaceId, key: "subtitle", name: "Subtitle", type: "text", position: 0 },
  });
  const rating = await prisma.field.create({
    data: { workspaceId, key: "rating", name: "Rating", type: "number", position: 1 },
  });
  for (const n of range(POSTS)) {
    await prisma.post.create({
      data: {
        workspaceId,
        title: `Post ${n}`,
        slug: `post-${n}`,
        description: `About post ${n}`,
        content: `<p>Body of post ${n}</p>`,
        status: "published",
        publishedAt: new Date(Date.UTC(2024, 0, 1) + n * 3_600_000),
        categoryId: `cat-${n % 4}`,
        tags: { create: [0, 1, 2].map((k) => ({ tagId: `tag-${(n + k) % 6}` })) },
        authors: { create: [0, 1].map((k) => ({ authorId: `author-${(n + k) % 4}`, position: k })) },
        fieldValues: {
          create: [
            { fieldId: subtitle.id, value: `Subtitle ${n}` },
            { fieldId: rating.id, value: n % 5 },
          ],
        },
      },
    });
  }
}

/** Runs `run` and returns its result and the statements it issued, without the API key lookup. */
async function measure<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  recording = [];
  try {
    const result = await run();
    return { result, statements: recording.filter((sql) => !sql.includes('"ApiKey"')) };
  } finally {
    recording = null;
  }
}

const LIST = `query($limit: Int) {
  posts(limit: $limit) {
    items {
      id title content
      authors { id name socials { url } count { posts } }
      category { id name count { posts } }
      tags { id name count { posts } }
      fields
    }
    pagination { totalItems }
  }
}`;

describe("statements per post list request", () => {
  it("GraphQL: the same small number for 10 and for 100 posts", async () => {
    const counts: number[] = [];
    for (const limit of [10, 100]) {
      const { result, statements } = await measure(() => app.graphql(ws.publicKey, LIST, { limit }));
      expect(result.errors).toBeUndefined();
      const data = result.data;
      expect(data.posts.items).toHaveLength(limit);
      expect(data.posts.pagination).toEqual({ totalItems: POSTS });
      // The newest post (99): authors 3 and 0 in that order, tags 3, 4, 5 by name, both field values.
      expect(data.posts.items[0]).toEqual({
        id: expect.any(String),
        title: "Post 99",
        content: "<p>Body of post 99</p>",
        authors: [
          {
            id: "author-3",
            name: "Author 3",
            socials: [{ url: "https://github.com/author-3" }],
            count: { posts: 50 },
          },
          {
            id: "author-0",
            name: "Author 0",
            socials: [{ url: "https://github.com/author-0" }],
            count: { posts: 50 },
          },
        ],
        category: { id: "cat-3", name: "Category 3", count: { posts: 25 } },
        tags: [
          { id: "tag-3", name: "Tag 3", count: { posts: 51 } },
          { id: "tag-4", name: "Tag 4", count: { posts: 50 } },
          { id: "tag-5", name: "Tag 5", count: { posts: 49 } },
        ],
        fields: { subtitle: "Subtitle 99", rating: 4 },
      });
      console.log(`GraphQL posts(limit: ${limit}): ${statements.length} SQL statements`);
      counts.push(statements.length);
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(MAX_STATEMENTS);
  });

  it("REST GET /v1/posts: the same small number for limit=10 and limit=100", async () => {
    // Warm the API key cache, so both measured requests are alike.
    await app.request("GET", "/v1/posts?limit=1", { key: ws.publicKey });
    const counts: number[] = [];
    for (const limit of [10, 100]) {
      const { result: res, statements } = await measure(() =>
        app.request("GET", `/v1/posts?limit=${limit}`, { key: ws.publicKey }),
      );
      expect(res.status).toBe(200);
      const body = res.body;
      expect(body.posts).toHaveLength(limit);
      expect(body.posts[0].authors).toHaveLength(2);
      expect(body.posts[0].tags).toHaveLength(3);
      expect(body.posts[0].fields).toEqual({ subtitle: "Subtitle 99", rating: 4 });
      // The post read form is what the read model loads: for the common page sizes one statement
      // counts, picks the page's ids, reads the custom field definitions and the whole page's rows.
      // Nothing else but the response cache's read of the content head, when that statement does not
      // read it (CACHE=redis: test/api/cache-miss-head.test.ts).
      const ownStatements = statements.filter((sql) => sql !== `SELECT ${logHeadExpression("$1")} AS head`);
      expect(ownStatements, ownStatements.join("\n---\n")).toHaveLength(1);
      expect(ownStatements[0]).toContain("count(*)::int");
      expect(ownStatements[0]).toContain("page_ids AS");
      console.log(`REST GET /v1/posts?limit=${limit}: ${statements.length} SQL statements`);
      counts.push(statements.length);
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(MAX_STATEMENTS);
  });

  it("REST GET /v1/posts of another page size: two statements, the ids then the rows", async () => {
    expect(ONE_STATEMENT_PAGE_SIZES.has(7)).toBe(false);
    const { result: res, statements } = await measure(() =>
      app.request("GET", "/v1/posts?limit=7", { key: ws.publicKey }),
    );
    expect(res.status).toBe(200);
    expect(res.body.posts).toHaveLength(7);
    expect(res.body.posts[0].fields).toEqual({ subtitle: "Subtitle 99", rating: 4 });
    const ownStatements = statements.filter((sql) => sql !== `SELECT ${logHeadExpression("$1")} AS head`);
    expect(ownStatements, ownStatements.join("\n---\n")).toHaveLength(2);
    expect(ownStatements[0]).toContain("count(*)::int");
    expect(ownStatements[1]).toContain("FROM unnest($2::text[]) WITH ORDINALITY AS page");
  });

  it("GraphQL without `pagination`: no count, one statement; a page past the last is still an error", async () => {
    const items = "items { id slug title authors { name } category { name } tags { name } }";
    const noNumbers = `query($page: Int) { posts(limit: 10, page: $page) { ${items} } }`;
    const withNumbers = `query($page: Int) { posts(limit: 10, page: $page) { ${items} pagination { totalItems } } }`;
    const without = await measure(() => app.graphql(ws.publicKey, noNumbers, { page: 2 }));
    expect(without.result.errors).toBeUndefined();
    const own = without.statements.filter((sql) => sql !== `SELECT ${logHeadExpression("$1")} AS head`);
    expect(own, own.join("\n---\n")).toHaveLength(1);
    expect(own[0]).not.toContain("count(");
    const counted = await measure(() => app.graphql(ws.publicKey, withNumbers, { page: 2 }));
    expect(counted.statements.some((sql) => sql.includes("count(*)::int"))).toBe(true);
    // The same items either way.
    expect(without.result.data.posts.items).toEqual(counted.result.data.posts.items);
    expect(counted.result.data.posts.pagination).toEqual({ totalItems: POSTS });
    // Past the last page (10 of 100 posts a page): the same error, total included, asked for or not.
    const past = await app.graphql(ws.publicKey, noNumbers, { page: 11 });
    const pastCounted = await app.graphql(ws.publicKey, withNumbers, { page: 11 });
    expect(past.errors?.[0]?.extensions?.code).toBeDefined();
    expect(past.errors).toEqual(pastCounted.errors);
    expect(past.data).toEqual(pastCounted.data);
  });

  it("a ranked search also stays constant", async () => {
    const counts: number[] = [];
    for (const limit of [10, 100]) {
      const search = LIST.replace("posts(limit: $limit)", 'posts(limit: $limit, query: "body")');
      const { result, statements } = await measure(() => app.graphql(ws.publicKey, search, { limit }));
      expect(result.errors).toBeUndefined();
      expect(result.data.posts.items).toHaveLength(limit);
      counts.push(statements.length);
    }
    // The full-text match is one raw SQL statement; Prisma then filters the matching ids and reads the
    // page (the selection asks for counts, which the read model does not load).
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(MAX_STATEMENTS);
  });
});

describe("statements per cursor connection request", () => {
  it("a search with totalCount matches the text once, for the page and the count together", async () => {
    const query = `{ postsConnection(first: 5, query: "body") { totalCount edges { node { id } } } }`;
    const { result, statements } = await measure(() => app.graphql(ws.publicKey, query));
    expect(result.errors).toBeUndefined();
    expect(result.data.postsConnection.edges).toHaveLength(5);
    expect(statements.filter((sql) => sql.includes("websearch_to_tsquery"))).toHaveLength(1);
    expect(statements.length).toBeLessThanOrEqual(MAX_STATEMENTS);
  });
});

describe("statements per write request (REST)", () => {
  it("create, update and delete a post each stay within the limit, whatever the post carries", async () => {
    await app.request("GET", "/v1/posts?limit=1", { key: ws.privateKey });
    const body = {
      title: "Counted",
      slug: "counted",
      description: "A post whose write is counted",
      content: "<p>Counted body</p>",
      categoryId: "cat-1",
      status: "draft",
      tags: ["tag-0", "tag-1", "tag-2", "tag-3", "tag-4"],
      authors: ["author-2", "author-1", "author-0"],
      fields: { subtitle: "Counted subtitle", rating: 3 },
    };
    const create = await measure(() => app.request("POST", "/v1/posts", { key: ws.privateKey, body }));
    expect(create.result.status).toBe(201);
    const update = await measure(() =>
      app.request("PATCH", "/v1/posts/counted", {
        key: ws.privateKey,
        body: {
          status: "published",
          tags: ["tag-5"],
          authors: ["author-3", "author-2"],
          fields: { rating: null },
        },
      }),
    );
    expect(update.result.status).toBe(200);
    const read = await app.request("GET", "/v1/posts/counted", { key: ws.privateKey });
    expect(read.body.post).toMatchObject({
      status: "published",
      tags: [{ id: "tag-5" }],
      authors: [{ id: "author-3" }, { id: "author-2" }],
      fields: { subtitle: "Counted subtitle", rating: null },
    });
    const remove = await measure(() => app.request("DELETE", "/v1/posts/counted", { key: ws.privateKey }));
    expect(remove.result.status).toBe(200);
    const counts = [create, update, remove].map((m) => m.statements.length);
    console.log(`REST POST / PATCH / DELETE /v1/posts: ${counts.join(" / ")} SQL statements`);
    for (const count of counts) expect(count).toBeLessThanOrEqual(MAX_STATEMENTS);
  });
});

describe("statements per single post request", () => {
  it("REST GET /v1/posts/{slug} and /{id}: one statement for the post, its relations and field definitions", async () => {
    await app.request("GET", "/v1/posts/post-1", { key: ws.publicKey });
    for (const identifier of [
      "post-42",
      (await app.db.prisma.post.findFirstOrThrow({ where: { slug: "post-42" } })).id,
    ]) {
      const { result: res, statements } = await measure(() =>
        app.request("GET", `/v1/posts/${identifier}`, { key: ws.publicKey }),
      );
      expect(res.status).toBe(200);
      expect(res.body.post.slug).toBe("post-42");
      expect(res.body.post.fields).toEqual({ subtitle: "Subtitle 42", rating: 2 });
      const ownStatements = statements.filter((sql) => sql !== `SELECT ${logHeadExpression("$1")} AS head`);
      expect(ownStatements, ownStatements.join("\n---\n")).toHaveLength(1);
      // The read model's single-post statement (readSinglePostRow), not Prisma's.
      expect(ownStatements[0]).toMatch(/WHERE pa\."postId" = p\.id ORDER BY pa\.position\)\) AS authors/);
    }
  });

  it("answers as Prisma does for the same post (a selection the read model does not cover goes to Prisma)", async () => {
    const fields =
      "id slug title status content publishedAt authors { id name slug socials { platform url } } category { id name slug } tags { id name slug } fields";
    const covered = await app.graphql(ws.publicKey, `{ post(identifier: "post-7") { ${fields} } }`);
    const byPrisma = await app.graphql(
      ws.publicKey,
      `{ post(identifier: "post-7") { ${fields} viaPrisma: tags { count { posts } } } }`,
    );
    expect(covered.errors).toBeUndefined();
    expect(byPrisma.errors).toBeUndefined();
    const { viaPrisma, ...rest } = byPrisma.data.post;
    expect(viaPrisma).toHaveLength(3);
    expect(covered.data.post).toEqual(rest);
    const missing = await app.graphql(ws.publicKey, `{ post(identifier: "no-such-post") { ${fields} } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});
