// In-process GraphQL for the suites: `ok` expects data and no errors, `fails` expects exactly one
// error and returns it in its serialized form (message, path, extensions), as a client would see it.
import type { GraphQLFormattedError } from "graphql";
import { expect } from "vitest";
import type { TestApp } from "../../helpers/test-app.ts";

export interface GraphQLClient {
  // biome-ignore lint/suspicious/noExplicitAny: response data is checked by the tests
  ok(query: string, variables?: Record<string, unknown>): Promise<any>;
  fails(query: string, variables?: Record<string, unknown>): Promise<GraphQLFormattedError>;
}

export function graphqlClient(app: TestApp, key: string): GraphQLClient {
  return {
    async ok(query, variables) {
      const result = await app.graphql(key, query, variables);
      expect(result.errors?.map(serialize), query).toBeUndefined();
      return result.data;
    },
    async fails(query, variables) {
      const result = await app.graphql(key, query, variables);
      expect(result.errors, `expected an error from ${query}`).toHaveLength(1);
      return serialize(result.errors?.[0]);
    },
  };
}

function serialize(error: unknown): GraphQLFormattedError {
  const withJson = error as { toJSON?: () => GraphQLFormattedError };
  const formatted =
    typeof withJson.toJSON === "function" ? withJson.toJSON() : (error as GraphQLFormattedError);
  return JSON.parse(JSON.stringify(formatted)) as GraphQLFormattedError;
}

/** ISO 8601 UTC timestamps as the API writes them. */
export const isoDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** Distinct, ordered publishedAt values: day n of 2024, noon UTC. */
export function day(n: number): string {
  return new Date(Date.UTC(2024, 0, 1 + n, 12)).toISOString();
}

/** Creates content through the GraphQL mutations with a private key. */
export function graphqlFixtures(client: GraphQLClient) {
  return {
    async category(slug: string, extra: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
      const data = await client.ok(
        "mutation($input: CreateCategoryInput!) { createCategory(input: $input) { id slug } }",
        {
          input: { name: titleOf(slug), slug, ...extra },
        },
      );
      return data.createCategory;
    },
    async tag(slug: string, extra: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
      const data = await client.ok(
        "mutation($input: CreateTagInput!) { createTag(input: $input) { id slug } }",
        {
          input: { name: titleOf(slug), slug, ...extra },
        },
      );
      return data.createTag;
    },
    async author(slug: string, extra: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
      const data = await client.ok(
        "mutation($input: CreateAuthorInput!) { createAuthor(input: $input) { id slug } }",
        {
          input: { name: titleOf(slug), slug, ...extra },
        },
      );
      return data.createAuthor;
    },
    async post(
      input: { slug: string; categoryId: string } & Record<string, unknown>,
    ): Promise<{ id: string; slug: string }> {
      const data = await client.ok(
        "mutation($input: CreatePostInput!) { createPost(input: $input) { id slug } }",
        {
          input: {
            title: titleOf(input.slug),
            content: `<p>Body of ${input.slug}</p>`,
            description: `About ${input.slug}`,
            status: "PUBLISHED",
            ...input,
          },
        },
      );
      return data.createPost;
    },
    async field(
      input: { key: string; type: string } & Record<string, unknown>,
    ): Promise<{ id: string; key: string }> {
      const data = await client.ok(
        "mutation($input: CreateFieldInput!) { createField(input: $input) { id key } }",
        {
          input: { name: titleOf(input.key), ...input },
        },
      );
      return data.createField;
    },
  };
}

/** `my-slug` → `My slug`. */
export function titleOf(slug: string): string {
  const words = slug.replace(/[-_]/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
