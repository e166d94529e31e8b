// Variable-coercion errors (a client value GraphQL refused before any resolver ran) are the client's
// mistake: the shared error mapping makes them BAD_USER_INPUT naming the value, and REST a 400.
import { envelop, useEngine, useSchema } from "@envelop/core";
import {
  buildSchema,
  type ExecutionResult,
  execute,
  type GraphQLError,
  parse,
  specifiedRules,
  validate,
} from "graphql";
import { describe, expect, it } from "vitest";
import { useErrorMapping } from "../../src/graphql/plugins/use-error-mapping.ts";
import { silentLogger } from "../../src/logger.ts";
import { restErrorFromGraphQL } from "../../src/rest/errors.ts";

const schema = buildSchema(`
  input PostInput { title: String, publishedAt: Int }
  type Query { posts(page: Int): Int, create(input: PostInput!): Int, broken: Int }
`);
const getEnveloped = envelop({
  plugins: [
    useEngine({ parse, validate, execute, specifiedRules }),
    useSchema(schema),
    useErrorMapping({ logger: silentLogger }),
  ],
});

async function errorsOf(
  source: string,
  variables: Record<string, unknown>,
  rootValue?: object,
): Promise<readonly GraphQLError[]> {
  const { execute: run, schema: s } = getEnveloped();
  const result = (await run({
    schema: s,
    document: parse(source),
    variableValues: variables,
    rootValue,
  })) as ExecutionResult;
  return result.errors ?? [];
}

describe("variable coercion errors", () => {
  it("a scalar variable out of range names the variable", async () => {
    const errors = await errorsOf("query ($page: Int) { posts(page: $page) }", { page: 1e20 });
    expect(errors[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", http: { status: 400 } });
    expect(restErrorFromGraphQL(errors)).toEqual({
      status: 400,
      body: {
        error: "Validation failed",
        message: expect.stringContaining('Variable "$page"'),
        details: [{ field: "page", message: expect.stringMatching(/Int/) }],
      },
    });
  });

  it("a field of an input object names the field, not the variable", async () => {
    const errors = await errorsOf("query ($input: PostInput!) { create(input: $input) }", {
      input: { publishedAt: "soon" },
    });
    expect(restErrorFromGraphQL(errors).body).toMatchObject({
      details: [{ field: "publishedAt", message: expect.any(String) }],
    });
  });

  it("an unexpected error raised while resolving is masked and stays a 500", async () => {
    const errors = await errorsOf(
      "{ broken }",
      {},
      {
        broken: () => {
          throw new Error("connection string postgres://secret");
        },
      },
    );
    expect(errors[0]?.message).toBe("Unexpected error.");
    expect(restErrorFromGraphQL(errors)).toEqual({
      status: 500,
      body: { error: "Internal server error", message: expect.not.stringContaining("secret") },
    });
  });
});
