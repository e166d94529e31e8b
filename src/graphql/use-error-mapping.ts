// An envelop plugin that gives both doors (/graphql and the in-process REST executions) the same
// errors: client errors pass through, Prisma errors a client can cause are mapped, everything else is
// logged and masked so nothing internal leaks.
import type { Plugin } from "@envelop/core";
import { GraphQLError } from "graphql";
import type { Logger } from "../logger.ts";
import { mapPrismaError } from "./prisma-errors.ts";

export const INTERNAL_ERROR_MESSAGE = "Unexpected error.";

export function useErrorMapping(options: { logger: Logger }): Plugin {
  const mapError = (error: GraphQLError): GraphQLError => {
    if (error.extensions?.code || !error.originalError) return error;
    const original = error.originalError;
    if (original instanceof GraphQLError && original.extensions?.code) {
      return new GraphQLError(original.message, { ...error, extensions: original.extensions });
    }
    const mapped = mapPrismaError(original);
    if (mapped) return new GraphQLError(mapped.message, { nodes: error.nodes, path: error.path, extensions: mapped.extensions });
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
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!("errors" in result) || !result.errors?.length) return;
        setResult({ ...result, errors: result.errors.map((error) => mapError(error as GraphQLError)) });
      },
    }),
  };
}
