// Bounds every GraphQL document before it runs, so that one key cannot stall the service with a cheap
// request: tokens (at parse time, so deep nesting never reaches a recursive walk), aliases, directives
// and depth (graphql-armor's envelop plugins), and the cost of introspection (introspection-cost.ts).
// The cost of the schema's own fields is priced by the Pothos complexity plugin (builder.ts).
// Every refusal is a QUERY_TOO_COMPLEX error (400) naming the measure and the limit.
import type { Plugin } from "@envelop/core";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import { GraphQLError, type ValidationContext } from "graphql";
import { queryTooComplexError } from "../errors.ts";
import { introspectionCostRule } from "../execution/introspection-cost.ts";

export interface QueryBounds {
  /** Lexical tokens in one document (a name, a brace, a string …). */
  maxTokens: number;
  /** Aliased fields in one operation, fragments included. */
  maxAliases: number;
  /** Directives in one operation. */
  maxDirectives: number;
  /** Nesting of the schema's fields (the Pothos complexity plugin checks the same limit again). */
  maxDepth: number;
  /** Objects the introspection part of one operation may answer. */
  maxIntrospectionObjects: number;
}

type Measure = "tokens" | "aliases" | "directives" | "depth" | "introspection";

export function useQueryBounds(bounds: QueryBounds): Plugin {
  // armor's rules report "… limit of N exceeded, found M."; keep its count, say it in our words.
  const refuse = (measure: Measure, max: number) => (armorError: GraphQLError) =>
    refusal(measure, foundCount(armorError.message), max);
  const report = (measure: Measure, max: number) => ({
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) =>
        context?.reportError(refuse(measure, max)(error)),
    ],
  });
  const tokens = maxTokensPlugin({
    n: bounds.maxTokens,
    propagateOnRejection: false,
    // At parse time there is no validation context to report to: stop the parser with our error.
    onReject: [
      (_context: unknown, error: GraphQLError) => {
        throw refuse("tokens", bounds.maxTokens)(error);
      },
    ],
  });
  const introspection: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(
        introspectionCostRule({
          max: bounds.maxIntrospectionObjects,
          onExceeded: (context, cost) => context.reportError(refusal("introspection", cost.actual, cost.max)),
        }),
      );
    },
  };
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(tokens);
      addPlugin(maxAliasesPlugin({ n: bounds.maxAliases, ...report("aliases", bounds.maxAliases) }));
      addPlugin(
        maxDirectivesPlugin({ n: bounds.maxDirectives, ...report("directives", bounds.maxDirectives) }),
      );
      // Fragments do not add a level (as in the Pothos plugin's count); introspection is priced by size.
      addPlugin(
        maxDepthPlugin({
          n: bounds.maxDepth,
          flattenFragments: true,
          ignoreIntrospection: true,
          ...report("depth", bounds.maxDepth),
        }),
      );
      addPlugin(introspection);
    },
  };
}

/**
 * Yoga answers validation errors 200 to clients that accept only application/json (GraphQL over HTTP's
 * legacy rule) unless the error says otherwise: a refused query is 400 for every client, as it was
 * when only the complexity plugin refused queries (during execution).
 */
function refusal(measure: Measure, actual: number | null, max: number): GraphQLError {
  const error = queryTooComplexError(measure, actual, max);
  return new GraphQLError(error.message, {
    extensions: { ...error.extensions, http: { status: 400, spec: false } },
  });
}

function foundCount(message: string): number | null {
  const found = /found (\d+)/.exec(message)?.[1];
  return found === undefined ? null : Number(found);
}
