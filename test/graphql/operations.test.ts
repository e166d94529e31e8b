// Operating /graphql: depth and cost limits reject abusive queries with a clear error (while every
// REST operation fits), GraphiQL for browsers, and introspection with a key.
import { complexityFromQuery } from "@pothos/plugin-complexity";
import {
  buildClientSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  parse,
  printSchema,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveApiKey } from "../../src/auth/resolve-api-key.ts";
import { MAX_QUERY_BREADTH, queryLimits } from "../../src/graphql/builder.ts";
import { createGraphQLContext } from "../../src/graphql/context.ts";
import { schema } from "../../src/graphql/executable-schema.ts";
import { createInProcessQueries } from "../../src/graphql/execution/in-process-queries.ts";
import { type ContentYoga, createContentYoga } from "../../src/graphql/yoga.ts";
import { silentLogger } from "../../src/logger.ts";
import { executeOperation, prepareOperation } from "../../src/rest/execute.ts";
import { restRoutes } from "../../src/rest/routes/index.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { type GraphQLClient, graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let reader: GraphQLClient;
/** The defaults of GRAPHQL_MAX_DEPTH and GRAPHQL_MAX_COMPLEXITY. */
const LIMITS = { depth: 10, complexity: 5_000, breadth: MAX_QUERY_BREADTH };

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Ops");
  reader = graphqlClient(app, ws.publicKey);
  const f = graphqlFixtures(graphqlClient(app, ws.privateKey));
  const category = await f.category("news");
  await f.post({ slug: "one", categoryId: category.id });
});
afterAll(async () => app?.close());

const DEEP = `{ posts { items { category { posts { items { category { posts { items { category {
  posts { items { id } } } } } } } } } } } }`;
const WIDE = "{ posts(limit: 100) { items { category { posts(limit: 100) { items { id title } } } } } }";

describe("depth and complexity limits", () => {
  it("rejects a query nested deeper than the limit, before reading anything", async () => {
    const error = await reader.fails(DEEP);
    expect(error).toEqual({
      message: `Query depth 12 exceeds the limit of ${LIMITS.depth}; ask for less in one request`,
      locations: [{ line: 1, column: 3 }],
      path: ["posts"],
      extensions: {
        code: "QUERY_TOO_COMPLEX",
        http: { status: 400 },
        measure: "depth",
        actual: 12,
        max: LIMITS.depth,
      },
    });
  });

  it("rejects lists of posts nested in lists of posts as too costly", async () => {
    const error = await reader.fails(WIDE);
    expect(error.message).toBe(
      `Query complexity 30301 exceeds the limit of ${LIMITS.complexity}; ask for less in one request`,
    );
    expect(error.extensions).toEqual({
      code: "QUERY_TOO_COMPLEX",
      http: { status: 400 },
      measure: "complexity",
      actual: 30301,
      max: LIMITS.complexity,
    });
  });

  it("counts a page list's selection once per item its limit allows", () => {
    const cost = (limit: number) =>
      complexityFromQuery(`{ posts(limit: ${limit}) { items { id title } } }`, { schema }).complexity;
    expect(cost(10)).toBe(1 + 10 * (1 + 2));
    expect(cost(100)).toBe(1 + 100 * (1 + 2));
    const connection = complexityFromQuery("{ postsConnection(first: 50) { edges { node { id } } } }", {
      schema,
    });
    expect(connection.complexity).toBe(1 + 50 * (1 + 1 + 1));
  });

  /** The services of a Yoga over the test app's database with other GRAPHQL_MAX_DEPTH / GRAPHQL_MAX_COMPLEXITY. */
  const servicesWithLimits = (limits: { maxDepth?: number; maxComplexity?: number }) => ({
    config: { ...app.config, graphql: { ...app.config.graphql, ...limits } },
    logger: silentLogger,
    sql: app.db.sql,
    mediaStorage: app.mediaStorage,
  });
  const yogaWithLimits = (limits: { maxDepth?: number; maxComplexity?: number }) =>
    createContentYoga(app.db.prisma, servicesWithLimits(limits));

  /** Executes `query` as a /graphql request of the workspace's public key would, as plain JSON. */
  const executeIn = async (yoga: ContentYoga, query: string, variableValues?: Record<string, unknown>) => {
    const caller = await resolveApiKey(app.db.prisma, ws.publicKey);
    const { contextFactory, execute, schema: executable } = yoga.getEnveloped({ req: { caller } } as never);
    const result = await execute({
      schema: executable,
      document: parse(query),
      variableValues,
      contextValue: await contextFactory(),
    });
    return JSON.parse(JSON.stringify(result));
  };

  it("takes the limits from GRAPHQL_MAX_DEPTH and GRAPHQL_MAX_COMPLEXITY", async () => {
    expect(queryLimits(app.config)).toEqual(LIMITS);
    const yoga = yogaWithLimits({ maxDepth: 3, maxComplexity: 20 });
    const run = (query: string) => executeIn(yoga, query);
    expect(await run("{ posts(limit: 2) { items { slug } } }")).toEqual({
      data: { posts: { items: [{ slug: "one" }] } },
    });
    const deep = await run("{ posts { items { category { slug } } } }");
    expect(deep.errors[0].extensions).toEqual({
      code: "QUERY_TOO_COMPLEX",
      http: { status: 400 },
      measure: "depth",
      actual: 4,
      max: 3,
    });
    const costly = await run("{ posts(limit: 10) { items { slug } } }");
    expect(costly.errors[0].extensions).toEqual({
      code: "QUERY_TOO_COMPLEX",
      http: { status: 400 },
      measure: "complexity",
      actual: 21,
      max: 20,
    });
  });

  it("holds a REST route's operation to the same limits, with the plugin's own error, at every page size", async () => {
    const route = restRoutes(app.config).find((candidate) => candidate.name === "listPosts");
    if (!route) throw new Error("no listPosts route");
    const cost = (limit: number) =>
      complexityFromQuery(route.document, { schema, variables: { limit } }).complexity;
    // Between the costs of a page of 2 and a page of 3: the first fits, the second does not.
    const max = cost(2) + 1;
    expect(cost(3)).toBeGreaterThan(max);
    const yoga = yogaWithLimits({ maxComplexity: max });
    const services = servicesWithLimits({ maxComplexity: max });
    const queries = createInProcessQueries(schema, services, (req) =>
      createGraphQLContext(app.db.prisma, services, req.caller),
    );
    const caller = await resolveApiKey(app.db.prisma, ws.publicKey);
    const prepared = prepareOperation(yoga, queries, route.document, route.name);
    // REST's reads run compiled, outside Yoga (in-process-queries.ts): held to the same limits.
    expect(prepared.compiled).not.toBeNull();
    const rest = async (limit: number) =>
      JSON.parse(
        JSON.stringify(
          await executeOperation(yoga, queries, prepared, { limit }, { caller } as never, {} as never),
        ),
      );
    // What the complexity plugin answers for the same document when it runs in the execution.
    const inExecution = (limit: number) => executeIn(yoga, route.document, { limit });
    for (let round = 0; round < 2; round++) {
      expect((await rest(2)).data.posts.items).toEqual([expect.objectContaining({ slug: "one" })]);
      const refused = await rest(3);
      expect(refused.data).toBeUndefined();
      expect(refused.errors[0].extensions).toEqual({
        code: "QUERY_TOO_COMPLEX",
        http: { status: 400 },
        measure: "complexity",
        actual: cost(3),
        max,
      });
      const plugin = await inExecution(3);
      expect(refused.errors[0].message).toBe(plugin.errors[0].message);
      expect(refused.errors[0].extensions).toEqual(plugin.errors[0].extensions);
    }
  });

  it("answers a REST query whose variables graphql-js refuses through Yoga, with graphql-js's errors", async () => {
    const route = restRoutes(app.config).find((candidate) => candidate.name === "listPosts");
    if (!route) throw new Error("no listPosts route");
    const yoga = yogaWithLimits({});
    const services = servicesWithLimits({});
    const queries = createInProcessQueries(schema, services, (req) =>
      createGraphQLContext(app.db.prisma, services, req.caller),
    );
    const caller = await resolveApiKey(app.db.prisma, ws.publicKey);
    const prepared = prepareOperation(yoga, queries, route.document, route.name);
    if (!prepared.compiled) throw new Error("listPosts is not compiled");
    // A page beyond GraphQL's 32-bit Int: the compiled query refuses it and leaves it to Yoga.
    const variables = { limit: 2, page: 2 ** 31 };
    expect(await queries.execute(prepared.compiled, variables, { caller } as never)).toBeNull();
    const answered = JSON.parse(
      JSON.stringify(
        await executeOperation(yoga, queries, prepared, variables, { caller } as never, {} as never),
      ),
    );
    expect(answered).toEqual(await executeIn(yoga, route.document, variables));
    expect(answered.errors[0].extensions).toMatchObject({ code: "BAD_USER_INPUT", http: { status: 400 } });
    expect(answered.errors[0].message).toContain("Int cannot represent");
  });

  it("answers 400 with the error over HTTP", async () => {
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: ws.publicKey,
      },
      body: JSON.stringify({ query: DEEP }),
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0]).toMatchObject({
      message: expect.stringContaining("Query depth 12"),
      extensions: { code: "QUERY_TOO_COMPLEX" },
    });
  });

  it("lets every REST read through at its largest page size", () => {
    const variables = {
      withPosts: true,
      limit: 100,
      page: 1,
      identifier: "x",
      id: "x",
      format: "HTML",
      status: "ALL",
      number: 1,
      compareTo: 1,
      compare: false,
    };
    const reads = restRoutes(app.config).filter((route) => route.method === "get");
    expect(reads.map((route) => route.name)).toContain("listPosts");
    for (const route of reads) {
      // `status` is a post filter almost everywhere; the delivery log's is the delivery's state.
      const forRoute = route.document.includes("WebhookDeliveryStatus")
        ? { ...variables, status: "FAILED", first: 100 }
        : variables;
      const result = complexityFromQuery(route.document, { schema, variables: forRoute });
      expect(result.depth, route.name).toBeLessThanOrEqual(LIMITS.depth);
      expect(result.breadth, route.name).toBeLessThanOrEqual(LIMITS.breadth);
      expect(result.complexity, route.name).toBeLessThanOrEqual(LIMITS.complexity);
    }
  });

  it("serves an ordinary frontend query", async () => {
    const data =
      await reader.ok(`{ posts(limit: 100) { items { id title content authors { name socials { url } }
      category { name count { posts } } tags { name count { posts } } fields } pagination { totalItems } } }`);
    expect(data.posts.pagination).toEqual({ totalItems: 1 });
  });
});

describe("GraphiQL", () => {
  it("serves the GraphiQL page to a browser (Accept: text/html) without a key", async () => {
    const response = await fetch(`${app.url}/graphql`, {
      headers: { accept: "text/html,application/xhtml+xml" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain("<title>Content service GraphQL</title>");
    expect(html.toLowerCase()).toContain("graphiql");
  });

  it("does not answer a GET query from the page's URL without a key", async () => {
    const response = await fetch(
      `${app.url}/graphql?query=${encodeURIComponent("{ posts { items { id } } }")}`,
      {
        headers: { accept: "text/html" },
      },
    );
    expect(response.status).toBe(401);
  });
});

describe("introspection", () => {
  it("works with a key and describes the whole schema", async () => {
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${ws.publicKey}`,
      },
      body: JSON.stringify({ query: getIntrospectionQuery() }),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    const fromIntrospection = printSchema(lexicographicSortSchema(buildClientSchema(body.data)));
    expect(fromIntrospection).toBe(printSchema(lexicographicSortSchema(schema)));
  });

  it("works in-process with a public key", async () => {
    const data = await reader.ok("{ __schema { queryType { name } mutationType { name } } }");
    expect(data).toEqual({ __schema: { queryType: { name: "Query" }, mutationType: { name: "Mutation" } } });
  });
});
