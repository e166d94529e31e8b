// Measures each GraphQL operation's execution (HTTP requests and the REST routes' in-process
// operations alike) by operation name and type, for the service's metrics (src/metrics.ts).
import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { GraphQLObservers } from "../context.ts";

export function useOperationMetrics(observers: GraphQLObservers): Plugin {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const operation = getOperationAST(args.document, args.operationName);
      return {
        onExecuteDone() {
          observers.observeOperation(
            operation?.name?.value ?? args.operationName ?? null,
            operation?.operation ?? "unknown",
            (performance.now() - started) / 1000,
          );
        },
      };
    },
  };
}
