// An envelop plugin that gives both doors (/graphql and the in-process REST executions) the same
// errors: client errors pass through, the domain's errors and the Prisma errors a client can cause are
// mapped (here, for every resolver), everything else is logged and masked so nothing internal leaks.
import type { Plugin } from "@envelop/core";
import { PothosValidationError } from "@pothos/core";
import { type ExecutionResult, GraphQLError } from "graphql";
import { isDatabaseUnreachable } from "../../db/database-unreachable.ts";
import { isStatementTimeout } from "../../db/statement-timeout.ts";
import { echoInput, shortenMessage } from "../../domain/echo-input.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Logger } from "../../logger.ts";
import { databaseUnavailableError, fromDomainError, timeoutError, userInputError } from "../errors.ts";
import { mapPrismaError } from "../map-prisma-errors.ts";

export const INTERNAL_ERROR_MESSAGE = "Unexpected error.";
const TIMEOUT = timeoutError();
const DATABASE_UNAVAILABLE = databaseUnavailableError();

export function useErrorMapping(options: { logger: Logger }): Plugin {
  const mapErrors = errorMapper(options);
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!("errors" in result)) return;
        const mapped = mapErrors(result);
        if (mapped !== result) setResult(mapped);
      },
    }),
  };
}

/** The mapping of a result's errors (the same for REST's executions): the result itself when it has none. */
export function errorMapper(options: { logger: Logger }): (result: ExecutionResult) => ExecutionResult {
  const mapError = (error: GraphQLError): GraphQLError => {
    if (error.extensions?.code) return error;
    // A required variable missing or null: graphql-js raises these itself, with no original error.
    if (!error.originalError) return isMissingVariable(error) ? variableInputError(error) : error;
    const original = error.originalError;
    // Pothos rejects arguments it validates itself (connection cursors and sizes) with these.
    if (original instanceof PothosValidationError) {
      const mapped = userInputError(original.message);
      return new GraphQLError(mapped.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: mapped.extensions,
      });
    }
    if (original instanceof GraphQLError) {
      if (original.extensions?.code)
        return new GraphQLError(original.message, { ...error, extensions: original.extensions });
      // graphql-js itself raised it while coercing variables (a bad enum value, a missing input field,
      // an integer beyond 32 bits): always the client's input, never a 500.
      return variableInputError(error);
    }
    if (isStatementTimeout(original)) {
      options.logger.warn("a statement reached the database deadline", { path: error.path?.join(".") });
      return new GraphQLError(TIMEOUT.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: TIMEOUT.extensions,
      });
    }
    if (isDatabaseUnreachable(original)) {
      options.logger.warn("the database could not be reached", { path: error.path?.join(".") });
      return new GraphQLError(DATABASE_UNAVAILABLE.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: DATABASE_UNAVAILABLE.extensions,
      });
    }
    const mapped = original instanceof DomainError ? fromDomainError(original) : mapPrismaError(original);
    if (mapped)
      return new GraphQLError(mapped.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: mapped.extensions,
      });
    options.logger.error("unexpected error in resolver", {
      path: error.path?.join("."),
      error: original.stack ?? String(original),
    });
    return new GraphQLError(INTERNAL_ERROR_MESSAGE, {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: "INTERNAL_SERVER_ERROR", http: { status: 500 } },
    });
  };
  return (result) =>
    result.errors?.length
      ? inResponseOrder(
          result,
          result.errors.map((error) => mapError(error as GraphQLError)),
        )
      : result;
}

/**
 * The result with `errors`, its entries in one order whichever executor made it: graphql-js puts
 * `errors` before `data`, graphql-jit (a document's second execution on, use-compiled-operations.ts)
 * after it, and the same not-found query answered with two different bodies (issue #37). `data`
 * first, as the specification's examples write it; a request error has no `data` at all.
 */
function inResponseOrder(result: ExecutionResult, errors: readonly GraphQLError[]): ExecutionResult {
  const { data, errors: _replaced, ...rest } = result;
  return "data" in result ? { data, errors, ...rest } : { errors, ...rest };
}

/**
 * A variable graphql-js refused, as BAD_USER_INPUT. Its messages quote the variable's value, whole:
 * shortened, so a huge value does not come back (twice). A request error of GraphQL over HTTP: 400 for
 * clients that accept application/graphql-response+json, 200 with `errors` for those that accept only
 * application/json (the specification's legacy rule, `spec: true` tells Yoga so).
 */
function variableInputError(error: GraphQLError): GraphQLError {
  return new GraphQLError(shortenMessage(error.message), {
    nodes: error.nodes,
    path: error.path,
    extensions: {
      code: "BAD_USER_INPUT",
      http: { status: 400, spec: true },
      details: [variableProblem(error.message)],
    },
  });
}

const MISSING_VARIABLE =
  /^Variable "\$(\w+)" of (?:required|non-null) type "[^"]+" (?:was not provided|must not be null)\.$/;

function isMissingVariable(error: GraphQLError): boolean {
  return MISSING_VARIABLE.test(error.message);
}

/** `Variable "$input" got invalid value 1 at "input.title"; <reason>` → { field: "title", message: reason }. */
function variableProblem(message: string): { field: string; message: string } {
  const missing = MISSING_VARIABLE.exec(message);
  if (missing) return { field: missing[1] ?? "variables", message };
  const match = /^Variable "\$(\w+)" got invalid value .*?(?: at "([\w.[\]]+)")?;\s*(.*)$/s.exec(message);
  if (!match) return { field: "variables", message: shortenMessage(message) };
  const field = (match[2] ?? match[1] ?? "variables").replace(/^input\./, "");
  return { field: echoInput(field), message: shortenMessage(match[3] || message) };
}
