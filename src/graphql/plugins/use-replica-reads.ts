// /graphql queries read from a replica when one is fresh enough (../replica-reads.ts); mutations and
// subscriptions are left on the primary. After the response cache's hook, whose head is read first:
// the replica chosen has replayed past it, so an answer it computes is as new as the head it is stored
// under.
import type { Plugin } from "@envelop/core";
import { getOperationAST, OperationTypeNode } from "graphql";
import type { GraphQLContext } from "../context.ts";
import { routeReads } from "../replica-reads.ts";

export function useReplicaReads(): Plugin<GraphQLContext> {
  return {
    async onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== OperationTypeNode.QUERY) return;
      await routeReads(args.contextValue as GraphQLContext);
    },
  };
}
