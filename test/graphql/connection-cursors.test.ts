// postsConnection cursors are bound to the workspace and the query that issued them: used with another
// workspace's key or with other filters they are refused (BAD_USER_INPUT, 400) before anything is read;
// garbage is a 400, never a 500; a cursor whose post was deleted since continues where it left off; and
// paging within one query walks every post once, forward and backward, at no extra statement.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { day, type GraphQLClient, graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let readerA: GraphQLClient;
let writerA: GraphQLClient;
let readerB: GraphQLClient;
let writerB: GraphQLClient;
let recording: string[] | null = null;

const OTHER_QUERY = /^This cursor was issued for another query; start again without `after`\/`before`$/;

beforeAll(async () => {
  app = await startTestApp({ onQuery: (sql) => recording?.push(sql) });
  [a, b] = [await app.workspace("Cursors A"), await app.workspace("Cursors B")];
  [readerA, writerA] = [graphqlClient(app, a.publicKey), graphqlClient(app, a.privateKey)];
  [readerB, writerB] = [graphqlClient(app, b.publicKey), graphqlClient(app, b.privateKey)];
  for (const [writer, prefix] of [
    [writerA, "a"],
    [writerB, "b"],
  ] as const) {
    const f = graphqlFixtures(writer);
    const [news, guides] = [await f.category("news"), await f.category("guides")];
    const [js, ts] = [await f.tag("js"), await f.tag("ts")];
    const author = await f.author("ann");
    // Seven published posts (two share a publishedAt, so ties are broken by id) and one draft.
    for (const n of [1, 2, 3, 4, 5, 6, 7]) {
      await f.post({
        slug: `${prefix}-${n}`,
        categoryId: n % 2 ? news.id : guides.id,
        tags: n % 3 ? [js.id] : [ts.id],
        authors: [author.id],
        featured: n <= 3,
        publishedAt: day(n === 7 ? 6 : n),
      });
    }
    await f.post({ slug: `${prefix}-draft`, categoryId: news.id, status: "DRAFT", publishedAt: day(9) });
  }
}, 120_000);
afterAll(async () => app?.close());

const CONNECTION = `query($first: Int, $last: Int, $after: String, $before: String, $categories: [String!],
  $excludeCategories: [String!], $tags: [String!], $excludeTags: [String!], $query: String, $featured: Boolean,
  $status: PostStatusFilter, $order: SortOrder) {
  postsConnection(first: $first, last: $last, after: $after, before: $before, categories: $categories,
    excludeCategories: $excludeCategories, tags: $tags, excludeTags: $excludeTags, query: $query,
    featured: $featured, status: $status, order: $order) {
    totalCount
    edges { cursor node { slug category { slug } tags { slug } authors { slug } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

interface Page {
  totalCount: number;
  edges: { cursor: string; node: { slug: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
}

async function page(client: GraphQLClient, variables: Record<string, unknown>): Promise<Page> {
  return (await client.ok(CONNECTION, variables)).postsConnection;
}

const slugsOf = (p: Page) => p.edges.map((edge) => edge.node.slug);

/** The error a refused cursor gives, with the proof that no data came with it. */
async function refused(key: string, variables: Record<string, unknown>) {
  const result = await app.graphql(key, CONNECTION, variables);
  expect(result.data ?? null).toBeNull();
  expect(result.errors).toHaveLength(1);
  return JSON.parse(JSON.stringify(result.errors?.[0]));
}

describe("a cursor used with another workspace's key", () => {
  it("is refused with BAD_USER_INPUT, giving no data and nothing about the other workspace's post", async () => {
    const issued = await page(readerA, { first: 2 });
    for (const position of [{ after: issued.pageInfo.endCursor }, { before: issued.pageInfo.startCursor }]) {
      const error = await refused(b.publicKey, { first: position.after ? 2 : undefined, ...position });
      expect(error.message).toMatch(OTHER_QUERY);
      expect(error.extensions).toEqual({ code: "BAD_USER_INPUT", http: { status: 400 }, details: [] });
      expect(JSON.stringify(error)).not.toMatch(/a-\d/);
    }
  });

  it("is refused with the workspace's private key too, and answers 400 over HTTP", async () => {
    const issued = await page(writerA, { first: 3, status: "ALL" });
    const error = await refused(b.privateKey, { first: 3, status: "ALL", after: issued.pageInfo.endCursor });
    expect(error.message).toMatch(OTHER_QUERY);
    const response = await app.request("POST", "/graphql", {
      key: b.publicKey,
      headers: { accept: "application/json" },
      body: {
        query: CONNECTION,
        variables: { first: 2, after: (await page(readerA, {})).pageInfo.endCursor },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.data).toBeNull();
    expect(response.body.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT" } }]);
  });
});

describe("a cursor used with other arguments", () => {
  // Three posts: a-4, a-5 and a-7.
  const issuedWith = { first: 2, tags: ["js"], featured: false, order: "ASC" };
  it.each([
    ["categories", { categories: ["news"] }],
    ["excludeCategories", { excludeCategories: ["guides"] }],
    ["tags", { tags: ["ts"] }],
    ["no tags", { tags: null }],
    ["excludeTags", { excludeTags: ["ts"] }],
    ["query", { query: "body" }],
    ["featured", { featured: true }],
    ["no featured", { featured: null }],
    ["status", { status: "ALL" }],
    ["order", { order: "DESC" }],
  ])("is refused when %s changes", async (_name, change) => {
    const issued = await page(writerA, issuedWith);
    expect(issued.pageInfo.hasNextPage).toBe(true);
    const error = await refused(a.privateKey, { ...issuedWith, ...change, after: issued.pageInfo.endCursor });
    expect(error.message).toMatch(OTHER_QUERY);
    expect(error.extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("is accepted when only the page size or an equivalent spelling of the filters changes", async () => {
    const issued = await page(readerA, { first: 2, tags: ["js", "ts"], query: "body " });
    const next = await page(readerA, {
      first: 3,
      tags: ["ts", "js"],
      query: "body",
      after: issued.pageInfo.endCursor,
    });
    expect(slugsOf(next)).toEqual(["a-5", "a-4", "a-3"]);
  });
});

describe("a cursor that is not one this service issued for the query", () => {
  it.each([
    ["garbage", "not-a-cursor"],
    ["empty", ""],
    ["base64 of something else", Buffer.from('{"hello":"world"}').toString("base64url")],
    ["a bare post id in the plugin's old format", Buffer.from("GPC:S:some-post-id").toString("base64")],
    ["huge", "x".repeat(100_000)],
  ])("%s → BAD_USER_INPUT (400), the cursor not echoed", async (_name, cursor) => {
    for (const position of [
      { first: 2, after: cursor },
      { last: 2, before: cursor },
    ]) {
      const error = await refused(a.publicKey, position);
      expect(error.extensions).toEqual({ code: "BAD_USER_INPUT", http: { status: 400 }, details: [] });
      expect(error.message.length).toBeLessThan(200);
      if (cursor) expect(error.message.includes(cursor)).toBe(false);
    }
  });

  it("truncated or extended → BAD_USER_INPUT (400)", async () => {
    const { endCursor } = (await page(readerA, { first: 2 })).pageInfo;
    for (const cursor of [
      endCursor.slice(0, -3),
      endCursor.slice(0, endCursor.length / 2),
      `${endCursor}AAAA`,
    ]) {
      const error = await refused(a.publicKey, { first: 2, after: cursor });
      expect(error.extensions?.code).toBe("BAD_USER_INPUT");
    }
  });

  it("with a position no post can hold → BAD_USER_INPUT (400), never a 500", async () => {
    const { endCursor } = (await page(readerA, { first: 2 })).pageInfo;
    for (const change of [
      (p: unknown[]) => [p[0], p[1], p[2], "id\u0000with-nul"],
      (p: unknown[]) => [p[0], p[1], Date.parse("9999-12-31T23:59:59.999Z") + 1, p[3]],
      (p: unknown[]) => [p[0], p[1], -8.64e15, p[3]],
      (p: unknown[]) => [p[0], p[1], "2024-01-01", p[3]],
      (p: unknown[]) => [99, p[1], p[2], p[3]],
      (p: unknown[]) => [p[0], p[1], p[2]],
    ]) {
      const error = await refused(a.publicKey, { first: 2, after: tampered(endCursor, change) });
      expect(error.extensions?.code).toBe("BAD_USER_INPUT");
    }
  });

  it("with its position moved, still pages only through the caller's own list", async () => {
    const { endCursor } = (await page(readerA, { first: 2 })).pageInfo;
    const moved = tampered(endCursor, (p) => [p[0], p[1], Date.parse(day(4)), "zzzz"]);
    expect(slugsOf(await page(readerA, { first: 2, after: moved }))).toEqual(["a-3", "a-2"]);
  });
});

/** A cursor of this service with its content changed (the format is base64url JSON, not a secret). */
function tampered(cursor: string, change: (payload: unknown[]) => unknown[]): string {
  const payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
  return Buffer.from(JSON.stringify(change(payload))).toString("base64url");
}

describe("a cursor whose post was deleted since", () => {
  it("continues with the posts that followed it", async () => {
    const f = graphqlFixtures(writerB);
    const category = await f.category("deleted-since");
    for (const n of [1, 2, 3, 4]) {
      await f.post({ slug: `gone-${n}`, categoryId: category.id, publishedAt: day(20 + n) });
    }
    const args = { first: 2, categories: ["deleted-since"] };
    const first = await page(readerB, args);
    expect(slugsOf(first)).toEqual(["gone-4", "gone-3"]);
    await writerB.ok(`mutation { deletePost(identifier: "gone-3") { id } }`);
    const next = await page(readerB, { ...args, after: first.pageInfo.endCursor });
    expect(slugsOf(next)).toEqual(["gone-2", "gone-1"]);
    expect(next.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const back = await page(readerB, {
      last: 2,
      categories: ["deleted-since"],
      before: next.pageInfo.startCursor,
    });
    expect(slugsOf(back)).toEqual(["gone-4"]);
  });
});

describe("paging within one query", () => {
  const ALL_DESC = ["a-6", "a-7", "a-5", "a-4", "a-3", "a-2", "a-1"];

  async function walkForward(client: GraphQLClient, args: Record<string, unknown>): Promise<string[]> {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await page(client, { ...args, after });
      seen.push(...slugsOf(p));
      if (!p.pageInfo.hasNextPage) return seen;
      after = p.pageInfo.endCursor;
    }
  }

  it("walks every post once, forward with first/after and backward with last/before", async () => {
    const ids = await walkForward(readerA, { first: 2 });
    expect(ids.slice().sort()).toEqual(ALL_DESC.slice().sort());
    // a-6 and a-7 share a publishedAt: their order is by id, whichever that is.
    expect(ids.slice(2)).toEqual(ALL_DESC.slice(2));

    const last = await page(readerA, { last: 3 });
    expect(slugsOf(last)).toEqual(ids.slice(-3));
    expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const before = await page(readerA, { last: 3, before: last.pageInfo.startCursor });
    expect(slugsOf(before)).toEqual(ids.slice(1, 4));
    expect(before.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const start = await page(readerA, { last: 3, before: before.pageInfo.startCursor });
    expect(slugsOf(start)).toEqual(ids.slice(0, 1));
    expect(start.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it("walks filtered, ascending, searched and draft-including lists the same way", async () => {
    expect(await walkForward(readerA, { first: 1, tags: ["js"], order: "ASC" })).toEqual([
      "a-1",
      "a-2",
      "a-4",
      "a-5",
      "a-7",
    ]);
    expect(await walkForward(readerA, { first: 2, query: "body", featured: true })).toEqual([
      "a-3",
      "a-2",
      "a-1",
    ]);
    expect(await walkForward(writerA, { first: 3, status: "ALL", excludeCategories: ["guides"] })).toEqual([
      "a-draft",
      "a-7",
      "a-5",
      "a-3",
      "a-1",
    ]);
  });

  it("reads a page after a cursor with as many statements as the first page, nested selections included", async () => {
    const first = await measure(() => app.graphql(a.publicKey, CONNECTION, { first: 3 }));
    const after = first.result.data.postsConnection.pageInfo.endCursor;
    const next = await measure(() => app.graphql(a.publicKey, CONNECTION, { first: 3, after }));
    expect(next.result.errors).toBeUndefined();
    expect(next.result.data.postsConnection.edges[0].node).toEqual({
      slug: "a-4",
      category: { slug: "guides" },
      tags: [{ slug: "js" }],
      authors: [{ slug: "ann" }],
    });
    expect(next.statements).toBe(first.statements);
  });
});

async function measure<T>(run: () => Promise<T>): Promise<{ result: T; statements: number }> {
  recording = [];
  try {
    const result = await run();
    return { result, statements: recording.length };
  } finally {
    recording = null;
  }
}
