// The REST door's reads, executed in-process as /graphql executes a compiled query, without Yoga's and
// envelop's per-request machinery around it.
//
// A REST route's document is fixed: parsed, validated and compiled (graphql-jit) once, at start. Going
// through envelop for each request meant building an enveloped instance and its context, running every
// plugin's hooks — most of which only act on HTTP requests (persisted documents, the GraphQL response
// cache, previews, media types, uploads) — and chaining each step through promise helpers. Here the
// steps that act on an execution run directly, in the order the plugins run them (yoga.ts): the text
// guard (use-null-byte-guard.ts), the compiled execution (use-compiled-operations.ts), then on the result
// the operation's measurement, the size cap, the errors' field nodes, the error mapping and Yoga's
// masking. Variables the compiled query refuses (it coerces them as graphql-js does) are left to the
// enveloped path (`null`), so those errors stay graphql-js's own. Mutations always take the enveloped path.
import type { Request } from "express";
import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  OperationTypeNode,
} from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import { maskError } from "graphql-yoga";
import { queryLimits } from "../builder.ts";
import type { AppServices, GraphQLContext } from "../context.ts";
import { countCompiledExecution, withFieldNodes } from "../plugins/use-compiled-operations.ts";
import { errorMapper, INTERNAL_ERROR_MESSAGE } from "../plugins/use-error-mapping.ts";
import { unstorableTextRefusal } from "../plugins/use-null-byte-guard.ts";
import { sizeCapped } from "../plugins/use-response-size-limit.ts";
import { routeReads } from "../replica-reads.ts";
import { markCompiledContext } from "./compiled-paths.ts";
import { checkKnownComplexity } from "./known-complexity.ts";

/** A query document compiled once, with what its measurements are labelled by. */
export interface CompiledOperation {
  document: DocumentNode;
  compiled: CompiledQuery;
  name: string | null;
}

export interface InProcessQueries {
  /** The compiled form of a document's query; null for a mutation (or a document jit cannot compile). */
  compile(document: DocumentNode): CompiledOperation | null;
  /**
   * Runs a compiled query for the request's caller. Null when graphql-js refuses its variables: the
   * caller then executes through Yoga, whose reference executor answers with graphql-js's own errors.
   */
  execute(
    operation: CompiledOperation,
    variables: Record<string, unknown>,
    req: Request,
  ): Promise<ExecutionResult | null>;
}

export function createInProcessQueries(
  schema: GraphQLSchema,
  services: AppServices,
  createContext: (req: Request) => GraphQLContext,
): InProcessQueries {
  const mapErrors = errorMapper({ logger: services.logger });
  const limits = queryLimits(services.config);
  const maxResponseBytes = services.config.graphql.maxResponseBytes;
  return {
    compile(document) {
      const operation = getOperationAST(document);
      if (operation?.operation !== OperationTypeNode.QUERY) return null;
      // The same options as @envelop/graphql-jit's (use-compiled-operations.ts): none.
      const compiled = compileQuery(schema, document, undefined, {});
      if (!isCompiledQuery(compiled)) return null;
      return { document, compiled, name: operation.name?.value ?? null };
    },
    async execute({ document, compiled, name }, variables, req) {
      const contextValue = createContext(req);
      const tooComplex = checkKnownComplexity(schema, document, variables, limits, contextValue);
      if (tooComplex) return { errors: [tooComplex] };
      await routeReads(contextValue);
      const started = performance.now();
      const refusal = unstorableTextRefusal(document, variables);
      let result: ExecutionResult;
      if (refusal) result = { errors: [refusal] };
      else {
        markCompiledContext(contextValue);
        result = (await compiled.query(undefined, contextValue, variables)) as ExecutionResult;
        // graphql-jit answers refused variables with errors and no `data` at all (a failed execution
        // has `data`, null at worst): then graphql-js's reference executor answers, with its own errors.
        if (!("data" in result)) return null;
        countCompiledExecution();
      }
      services.metrics?.observeOperation(name, "query", (performance.now() - started) / 1000);
      result = mapErrors(withFieldNodes(sizeCapped(result, maxResponseBytes), document, undefined));
      return result.errors
        ? {
            ...result,
            errors: result.errors.map((error) => maskError(error, INTERNAL_ERROR_MESSAGE) as GraphQLError),
          }
        : result;
    },
  };
}
