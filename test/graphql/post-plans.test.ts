// A post list's plan is kept when the read model covers it (src/graphql/post-plans.ts), and the read
// model's rows answer their fields without plugin-prisma's per-row bookkeeping
// (src/graphql/read-model-fields.ts). A client must not be able to tell: an answer from a kept plan is
// the answer of a fresh one, variables that change the selection get a plan of their own, and a plan
// the read model does not cover (one that depends on the request's time) is made afresh every time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postPlansMade } from "../../src/graphql/read-model/post-plans.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let fixtures: ReturnType<typeof graphqlFixtures>;
let tagIds: string[];
let categoryId: string;

beforeAll(async () => {
  // Cache off: every request executes.
  app = await startTestApp({ env: { CACHE: "off" } });
  ws = await app.workspace("Plans");
  fixtures = graphqlFixtures(graphqlClient(app, ws.privateKey));
  const category = await fixtures.category("news");
  categoryId = category.id;
  tagIds = [(await fixtures.tag("alpha")).id, (await fixtures.tag("beta")).id];
  const author = await fixtures.author("ann", { email: "ann@example.com" });
  await fixtures.field({ key: "mood", type: "TEXT" });
  for (const [index, slug] of ["one", "two", "three"].entries())
    await fixtures.post({
      slug,
      categoryId: category.id,
      tags: tagIds,
      authors: [author.id],
      publishedAt: new Date(Date.UTC(2024, 0, 1 + index)).toISOString(),
    });
});
afterAll(async () => app?.close());

async function ask(query: string, variables?: Record<string, unknown>) {
  const response = await app.request("POST", "/graphql", { key: ws.publicKey, body: { query, variables } });
  expect(response.status).toBe(200);
  return response.body as { data?: { posts: { items: Record<string, unknown>[] } }; errors?: unknown };
}

/** The answer and how many plans the request made. */
async function planned(query: string, variables?: Record<string, unknown>) {
  const before = postPlansMade();
  const body = await ask(query, variables);
  expect(body.errors).toBeUndefined();
  return { body, plans: postPlansMade() - before };
}

const LIST = `query Plans($withTags: Boolean!, $format: ContentFormat) {
  posts(limit: 10) {
    items {
      slug title publishedAt fields
      content(format: $format)
      category { slug name }
      authors { slug name }
      tags @include(if: $withTags) { slug name }
    }
  }
}`;

describe("plans of post lists", () => {
  it("keeps a covered plan: the same operation and variables plan once and answer the same", async () => {
    const first = await planned(LIST, { withTags: true });
    expect(first.plans).toBe(1);
    const items = first.body.data?.posts.items ?? [];
    expect(items.map((post) => post.slug)).toEqual(["three", "two", "one"]);
    expect(items[0]).toMatchObject({
      category: { slug: "news" },
      authors: [{ slug: "ann" }],
      tags: [{ slug: "alpha" }, { slug: "beta" }],
      fields: { mood: null },
    });
    const again = await planned(LIST, { withTags: true });
    expect(again.plans).toBe(0);
    expect(again.body).toEqual(first.body);
  });

  it("plans again for variables that change the selection, and keeps that plan too", async () => {
    const without = await planned(LIST, { withTags: false });
    expect(without.plans).toBe(1);
    expect(without.body.data?.posts.items[0]).not.toHaveProperty("tags");
    const withTags = await planned(LIST, { withTags: true });
    expect(withTags.plans).toBe(0);
    expect(withTags.body.data?.posts.items[0]).toHaveProperty("tags", [
      { slug: "alpha", name: "Alpha" },
      { slug: "beta", name: "Beta" },
    ]);
    expect((await planned(LIST, { withTags: false })).plans).toBe(0);
  });

  it("gives the resolvers each request's arguments with a kept plan (the body's format)", async () => {
    const html = await planned(LIST, { withTags: true, format: "HTML" });
    const markdown = await planned(LIST, { withTags: true, format: "MARKDOWN" });
    const htmlAgain = await planned(LIST, { withTags: true, format: "HTML" });
    const markdownAgain = await planned(LIST, { withTags: true, format: "MARKDOWN" });
    expect(htmlAgain.plans + markdownAgain.plans).toBe(0);
    const bodyOf = (answer: typeof html) => answer.body.data?.posts.items[0]?.content;
    expect(bodyOf(html)).toBe("<p>Body of three</p>");
    expect(bodyOf(markdown)).toBe("Body of three");
    expect(htmlAgain.body).toEqual(html.body);
    expect(markdownAgain.body).toEqual(markdown.body);
  });

  it("loads every column of the relations when a field under them needs one the read form does not show", async () => {
    // The read form's own plan, kept first: its rows leave the authors' emails and the timestamps out.
    await planned(LIST, { withTags: true });
    const WIDE = `{ posts(limit: 1) { items { slug authors { slug email createdAt } tags { slug updatedAt }
      category { slug createdAt } } } }`;
    const response = await app.request("POST", "/graphql", { key: ws.privateKey, body: { query: WIDE } });
    expect(response.body.errors).toBeUndefined();
    const [post] = response.body.data.posts.items;
    const authors = await app.request("POST", "/graphql", {
      key: ws.privateKey,
      body: { query: "{ authors { items { slug email createdAt } } }" },
    });
    expect(post.authors).toEqual(authors.body.data.authors.items);
    expect(post.authors[0].email).toBe("ann@example.com");
    expect(post.tags.map((tag: { updatedAt: string }) => Date.parse(tag.updatedAt))).not.toContain(
      Number.NaN,
    );
    expect(Number.isNaN(Date.parse(post.category.createdAt))).toBe(false);
  });

  it("makes a plan the read model does not cover afresh every time (a tag's count of posts)", async () => {
    const COUNTS = `{ posts(limit: 10) { items { slug tags { slug count { posts } } } } }`;
    const first = await planned(COUNTS);
    expect(first.plans).toBe(1);
    expect(first.body.data?.posts.items[0]?.tags).toEqual([
      { slug: "alpha", count: { posts: 3 } },
      { slug: "beta", count: { posts: 3 } },
    ]);
    await fixtures.post({ slug: "four", categoryId, tags: [tagIds[0]] });
    const second = await planned(COUNTS);
    expect(second.plans).toBe(1);
    expect(second.body.data?.posts.items[0]).toEqual({
      slug: "four",
      tags: [{ slug: "alpha", count: { posts: 4 } }],
    });
  });
});
