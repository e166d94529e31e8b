// Queries run compiled by graphql-jit from their second execution (src/graphql/use-compiled-operations.ts).
// A client must not be able to tell: each query below is sent twice over HTTP — the first answer comes
// from graphql-js's executor, the second from the compiled one — and both answers are identical, data
// and errors alike (messages, locations, paths, codes, HTTP status).
// The mutation is checked to run uncompiled and to work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledExecutions } from "../../src/graphql/plugins/use-compiled-operations.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  // Cache off: the second request must execute, not be answered from the response cache.
  app = await startTestApp({ env: { CACHE: "off" } });
  ws = await app.workspace("Compiled");
  const fixtures = graphqlFixtures(graphqlClient(app, ws.privateKey));
  const category = await fixtures.category("news");
  const tags = [await fixtures.tag("alpha"), await fixtures.tag("beta")];
  const author = await fixtures.author("ann");
  await fixtures.field({ key: "mood", type: "TEXT" });
  for (const [index, slug] of ["one", "two", "three"].entries())
    await fixtures.post({
      slug,
      categoryId: category.id,
      tags: tags.map((tag) => tag.id),
      authors: [author.id],
      publishedAt: new Date(Date.UTC(2024, 0, 1 + index)).toISOString(),
    });
  await fixtures.post({ slug: "draft", categoryId: category.id, status: "DRAFT" });
});
afterAll(async () => app?.close());

async function ask(key: string, query: string, variables?: Record<string, unknown>) {
  const response = await app.request("POST", "/graphql", { key, body: { query, variables } });
  return { status: response.status, body: response.body };
}

const LIST = `query List($limit: Int, $format: ContentFormat, $withTags: Boolean!) {
  posts(limit: $limit) {
    items {
      ...Card
      body: content(format: $format)
      tags @include(if: $withTags) { slug name }
      category { slug }
    }
    pagination { totalItems totalPages currentPage nextPage }
  }
}
fragment Card on Post { id slug title status publishedAt authors { slug } fields ... on Post { featured } }`;

const CASES: {
  name: string;
  key: "public" | "private";
  query: string;
  variables?: Record<string, unknown>;
  /** Executions that run compiled of the two (default 1: the second). */
  compiled?: number;
}[] = [
  {
    name: "a list with fragments, aliases and directives",
    key: "public",
    query: LIST,
    variables: { limit: 2, format: "MARKDOWN", withTags: true },
  },
  {
    name: "the same list with other variables",
    key: "public",
    query: LIST,
    variables: { limit: 5, withTags: false },
    // The document ran before: both executions run compiled.
    compiled: 2,
  },
  {
    name: "a cursor connection",
    key: "private",
    query: `{ postsConnection(first: 2) { totalCount edges { cursor node { slug } } pageInfo { hasNextPage endCursor } } }`,
  },
  {
    name: "a field error, with its location on a later line",
    key: "public",
    query: `query Missing {\n  __typename\n  known: post(identifier: "one") { slug }\n    tag(identifier: "nope") { id }\n}`,
  },
  {
    name: "a refusal inside a list selection",
    key: "public",
    query: `{ posts(status: DRAFT) { items { slug } } }`,
  },
  {
    name: "variables graphql-js refuses",
    key: "public",
    query: `query ($limit: Int) { posts(limit: $limit) { items { slug } } }`,
    variables: { limit: "ten" },
    // Never compiled: variables graphql-js refuses are answered by its executor, with its errors.
    compiled: 0,
  },
  {
    name: "introspection",
    key: "public",
    query: `{ __schema { queryType { name } } __type(name: "Post") { name kind } }`,
  },
];

describe("compiled queries answer exactly as the reference executor", () => {
  for (const testCase of CASES) {
    it(testCase.name, async () => {
      const key = testCase.key === "public" ? ws.publicKey : ws.privateKey;
      const compiledBefore = compiledExecutions();
      const reference = await ask(key, testCase.query, testCase.variables);
      const compiled = await ask(key, testCase.query, testCase.variables);
      expect(compiled).toEqual(reference);
      // The second request ran compiled (both did for a document run before).
      expect(compiledExecutions() - compiledBefore).toBe(testCase.compiled ?? 1);
    });
  }

  it("a mutation is never compiled", async () => {
    const before = compiledExecutions();
    const mutation = `mutation ($input: UpdateTagInput!) { updateTag(identifier: "alpha", input: $input) { slug } }`;
    for (const name of ["Alpha 1", "Alpha 2"])
      expect(await ask(ws.privateKey, mutation, { input: { name } })).toEqual({
        status: 200,
        body: { data: { updateTag: { slug: "alpha" } } },
      });
    expect(compiledExecutions()).toBe(before);
  });
});
