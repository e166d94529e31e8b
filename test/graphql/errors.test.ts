// The error codes of src/graphql/errors.ts as a client sees them: each with `extensions.code` and
// `extensions.http.status`; Prisma errors a client causes are mapped; anything unexpected is masked
// as "Unexpected error." (and logged) with nothing internal leaked.
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveApiKey } from "../../src/auth/resolve-api-key.ts";
import type { SqlExecutor } from "../../src/db/sql-executor.ts";
import { uniqueViolationColumns } from "../../src/graphql/map-prisma-errors.ts";
import { createContentYoga } from "../../src/graphql/yoga.ts";
import { createLogger } from "../../src/logger.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { type GraphQLClient, graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let reader: GraphQLClient;
let writer: GraphQLClient;
let categoryId: string;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Errors");
  reader = graphqlClient(app, ws.publicKey);
  writer = graphqlClient(app, ws.privateKey);
  const f = graphqlFixtures(writer);
  categoryId = (await f.category("news")).id;
  await f.post({ slug: "only", categoryId });
});
afterAll(async () => app?.close());

describe("client errors carry a code and an HTTP status", () => {
  it("NOT_FOUND (404) names the resource", async () => {
    const error = await reader.fails('{ tag(identifier: "nope") { id } }');
    expect(error).toEqual({
      message: 'Tag "nope" does not exist in this workspace',
      locations: [{ line: 1, column: 3 }],
      path: ["tag"],
      extensions: { code: "NOT_FOUND", http: { status: 404 }, resource: "Tag" },
    });
  });

  it("FORBIDDEN (403) for a write with a public key", async () => {
    const error = await reader.fails('mutation { createTag(input: { name: "T", slug: "t" }) { id } }');
    expect(error).toEqual({
      message: "Writes need a private API key; this key is public and can only read",
      locations: [{ line: 1, column: 12 }],
      path: ["createTag"],
      extensions: { code: "FORBIDDEN", http: { status: 403 }, requiredScope: "taxonomy:write" },
    });
  });

  it("UNAUTHENTICATED (401) without a valid key", async () => {
    const result = await app.graphql("pk_missing", "{ __typename }");
    expect(result.errors?.[0]?.extensions).toEqual({ code: "UNAUTHENTICATED", http: { status: 401 } });
  });

  it("BAD_USER_INPUT (400) with a details list of {field, message}", async () => {
    const error = await writer.fails('mutation { createCategory(input: { name: "", slug: "a b" }) { id } }');
    expect(error).toEqual({
      message: "Invalid category",
      locations: [{ line: 1, column: 12 }],
      path: ["createCategory"],
      extensions: {
        code: "BAD_USER_INPUT",
        http: { status: 400 },
        details: [
          { field: "name", message: "Must be at least 1 character" },
          {
            field: "slug",
            message:
              "Must be 1-200 lowercase letters, digits, and single hyphens or underscores between them",
          },
        ],
      },
    });
  });

  it("CONFLICT (409) for a slug in use, with the field in details", async () => {
    const error = await writer.fails(
      'mutation { createCategory(input: { name: "News", slug: "news" }) { id } }',
    );
    expect(error).toEqual({
      message: "This slug is already used by another record of this kind in the workspace",
      locations: [{ line: 1, column: 12 }],
      path: ["createCategory"],
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
  });

  it("CONFLICT (409) for a field key in use names the key, not the slug", async () => {
    await writer.ok(
      'mutation { createField(input: { key: "subtitle", name: "Subtitle", type: TEXT }) { id } }',
    );
    const error = await writer.fails(
      'mutation { createField(input: { key: "subtitle", name: "Again", type: TEXT }) { id } }',
    );
    expect(error.extensions).toEqual({
      code: "CONFLICT",
      http: { status: 409 },
      details: [{ field: "key", message: "A field with this key already exists in the workspace" }],
    });
  });

  it("PAGE_OUT_OF_RANGE (400) with the requested page and the number of pages", async () => {
    const error = await reader.fails("{ posts(page: 2) { items { id } } }");
    expect(error).toEqual({
      message: "Page 2 does not exist; there is 1 page",
      locations: [{ line: 1, column: 3 }],
      path: ["posts"],
      extensions: { code: "PAGE_OUT_OF_RANGE", http: { status: 400 }, requestedPage: 2, totalPages: 1 },
    });
  });
});

describe("variables graphql-js refuses before execution are BAD_USER_INPUT (400) too", () => {
  // Found by test/graphql/fuzz-graphql.test.ts: these two came back over HTTP without any code.
  const query = "query ($identifier: String!) { tag(identifier: $identifier) { id } }";
  it.each([
    ["missing", {}, 'Variable "$identifier" of required type "String!" was not provided.'],
    ["null", { identifier: null }, 'Variable "$identifier" of non-null type "String!" must not be null.'],
  ])("a required variable %s names the variable", async (_case, variables, message) => {
    const res = await app.request("POST", "/graphql", { key: ws.publicKey, body: { query, variables } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          message,
          locations: [{ line: 1, column: 8 }],
          extensions: { code: "BAD_USER_INPUT", details: [{ field: "identifier", message }] },
        },
      ],
    });
  });
});

describe("unique violations are told apart by their columns, whatever the driver reports", () => {
  it("reads PGlite's constraint fields, node-postgres' index name and the classic target", () => {
    const pglite = {
      modelName: "Tag",
      driverAdapterError: { cause: { constraint: { fields: ['"workspaceId"', "slug"] } } },
    };
    const pg = {
      modelName: "Field",
      driverAdapterError: { cause: { constraint: { index: "Field_workspaceId_key_key" } } },
    };
    const classic = { modelName: "FieldOption", target: ["fieldId", "value"] };
    expect(uniqueViolationColumns(pglite)).toEqual(["workspaceId", "slug"]);
    expect(uniqueViolationColumns(pg)).toEqual(["workspaceId", "key"]);
    expect(uniqueViolationColumns(classic)).toEqual(["fieldId", "value"]);
    const postSlug = {
      modelName: "Post",
      driverAdapterError: { cause: { constraint: { index: "Post_workspaceId_slug_key" } } },
    };
    expect(uniqueViolationColumns(postSlug)).toEqual(["workspaceId", "slug"]);
  });
});

describe("unexpected errors are masked and logged", () => {
  const secret = "connect ECONNREFUSED 10.9.8.7:5432 user=admin password=hunter2";
  const failingSql: SqlExecutor = {
    exec: async () => {
      throw new Error(secret);
    },
    query: async () => {
      throw new Error(secret);
    },
  };

  it("answers 'Unexpected error.' with INTERNAL_SERVER_ERROR (500), logs the cause, leaks nothing", async () => {
    const lines: string[] = [];
    const yoga = createContentYoga(app.db.prisma, {
      config: app.config,
      logger: createLogger("error", { write: (line) => lines.push(line) }),
      sql: failingSql,
      mediaStorage: app.mediaStorage,
    });
    const caller = await resolveApiKey(app.db.prisma, ws.publicKey);
    const { contextFactory, execute, schema } = yoga.getEnveloped({ req: { caller } } as never);
    const result = await execute({
      schema,
      document: parse('{ posts(query: "anything") { items { id } } }'),
      contextValue: await contextFactory(),
    });
    const serialized = JSON.parse(JSON.stringify(result));
    expect(serialized).toEqual({
      data: null,
      errors: [
        {
          message: "Unexpected error.",
          locations: [{ line: 1, column: 3 }],
          path: ["posts"],
          extensions: { code: "INTERNAL_SERVER_ERROR", http: { status: 500 } },
        },
      ],
    });
    expect(JSON.stringify(serialized)).not.toMatch(/hunter2|ECONNREFUSED|10\.9\.8\.7|at .*\.ts/);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: "error",
      msg: "unexpected error in resolver",
      path: "posts",
    });
    expect(lines[0]).toContain("hunter2");
  });

  it("leaks nothing over HTTP either", async () => {
    expectServerErrors();
    const original = app.db.sql.query;
    app.db.sql.query = failingSql.query;
    try {
      const response = await fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: ws.publicKey,
        },
        body: JSON.stringify({ query: '{ posts(query: "anything") { items { id } } }' }),
      });
      const text = await response.text();
      // Yoga turns `extensions.http` into the response status and leaves it out of the body.
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({
        data: null,
        errors: [
          {
            message: "Unexpected error.",
            locations: [{ line: 1, column: 3 }],
            path: ["posts"],
            extensions: { code: "INTERNAL_SERVER_ERROR" },
          },
        ],
      });
      expect(text).not.toMatch(/hunter2|ECONNREFUSED|stack/);
    } finally {
      app.db.sql.query = original;
    }
  });
});
