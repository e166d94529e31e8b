// The Pothos builder: plugins and scalars only. Types live in schema/<resource>.ts.
import SchemaBuilder from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import { GraphQLError, Kind } from "graphql";
import type { Config } from "../config.ts";
import { DATE_RANGE_PROBLEM, isCalendarDay, isStorableDate } from "../domain/dates.ts";
import { canonicalLocaleCode, localeCodeProblem } from "../domain/locale-codes.ts";
import type PrismaTypes from "../generated/pothos-prisma-types.ts";
import { getDatamodel } from "../generated/pothos-prisma-types.ts";
import type { GraphQLContext } from "./context.ts";
import { queryTooComplexError } from "./errors.ts";
import { complexityChecked } from "./execution/known-complexity.ts";

/** Most fields one operation may select (aliases included); not configurable. */
export const MAX_QUERY_BREADTH = 400;

/**
 * Bounds on the document itself, checked before validation finishes (use-query-bounds.ts); not
 * configurable. Generous for any real frontend query (GraphiQL's introspection query has 163 tokens),
 * small enough that parsing and walking a document stays far below a millisecond.
 */
export const DOCUMENT_BOUNDS = { maxTokens: 1_000, maxAliases: 30, maxDirectives: 50 } as const;

/**
 * Limits that reject abusive queries before any resolver runs (GRAPHQL_MAX_DEPTH and
 * GRAPHQL_MAX_COMPLEXITY). A field costs 1; page lists and connections count their selection once
 * per item their `limit`/`first` allows (see pageListComplexity), so the REST list of 100 posts
 * with everything costs about 3,400, while lists of posts nested in lists of posts cost tens of
 * thousands. Introspection costs one per object its answer holds (the whole schema is about 1,050)
 * and is held to the same limit.
 */
export function queryLimits(config: Pick<Config, "graphql">) {
  return {
    depth: config.graphql.maxDepth,
    complexity: config.graphql.maxComplexity,
    breadth: MAX_QUERY_BREADTH,
  };
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: JsonValue; Output: unknown };
    LocaleCode: { Input: string; Output: string };
    Upload: { Input: File; Output: never };
  };
  Connection: { totalCount: number | (() => number | Promise<number>) };
}>({
  plugins: [ComplexityPlugin, RelayPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    // A connection's cost is set by its `first`/`last` (see postsConnection); its edges count once.
    edgesFieldOptions: { complexity: { field: 1, multiplier: 1 } },
  },
  complexity: {
    defaultComplexity: 1,
    // Lists without a size argument are one record's own small sets (a post's authors and tags, an
    // author's socials): what makes a query expensive is the page size, counted by page lists.
    defaultListMultiplier: 1,
    // A REST route's execution was checked before it started (known-complexity.ts): no limits left.
    limit: (ctx) => (complexityChecked(ctx) ? {} : queryLimits(ctx.services.config)),
    complexityError: (kind, result) => {
      const measure = kind.toLowerCase() as "complexity" | "depth" | "breadth";
      const max =
        { complexity: result.maxComplexity, depth: result.maxDepth, breadth: result.maxBreadth }[measure] ??
        0;
      return queryTooComplexError(measure, result[measure], max);
    },
  },
});

builder.queryType({});
builder.mutationType({});

builder.scalarType("DateTime", {
  description: "ISO 8601 date-time",
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString()),
  parseValue: (value) => parseDateTime(value),
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

builder.scalarType("JSON", {
  description: "Any JSON value",
  serialize: (value) => value,
  parseValue: (value) => value as JsonValue,
});

builder.scalarType("Upload", {
  description: "A file sent with the GraphQL multipart request convention",
  serialize: () => {
    throw new GraphQLError("Upload is an input-only scalar");
  },
  parseValue: (value) => {
    if (value instanceof File) return value;
    throw new GraphQLError("Expected a file upload");
  },
});

builder.scalarType("LocaleCode", {
  description:
    "A BCP 47 language tag (en, en-US, pt-BR). Input is canonicalised (en-us becomes en-US); a malformed tag is refused",
  serialize: (value) => String(value),
  parseValue: (value) => parseLocaleCode(value),
  parseLiteral: (ast) => parseLocaleCode(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseLocaleCode(value: unknown): string {
  const canonical = typeof value === "string" ? canonicalLocaleCode(value) : null;
  if (canonical === null)
    throw new GraphQLError(
      typeof value === "string" ? localeCodeProblem(value) : "Expected a locale code string",
      {
        extensions: { code: "BAD_USER_INPUT", http: { status: 400 } },
      },
    );
  return canonical;
}

function parseDateTime(value: unknown): Date {
  const refuse = (message: string) =>
    new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } });
  const date = typeof value === "string" && isCalendarDay(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw refuse("Expected an ISO 8601 date-time string");
  // Well-formed, but the database cannot store it (year 0, say): refused here, not by PostgreSQL.
  if (!isStorableDate(date)) throw refuse(DATE_RANGE_PROBLEM);
  return date;
}
