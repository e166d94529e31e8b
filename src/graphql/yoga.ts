// The Yoga server over the Pothos schema. The HTTP layer has already resolved the caller (and refused
// requests without a valid key), so the context only packages it.
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type AppServices, createGraphQLContext, type GraphQLContext, type RequestCaller } from "./context.ts";
import { schema } from "./schema/index.ts";
import { useErrorMapping } from "./use-error-mapping.ts";

export interface ServerContext {
  req: ExpressRequest & { caller?: RequestCaller | null };
  res: ExpressResponse;
}

export type ContentYoga = YogaServerInstance<ServerContext, GraphQLContext>;

export function createContentYoga(prisma: PrismaClient, services: AppServices): ContentYoga {
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: { title: "Content service GraphQL", defaultQuery: "{ posts(limit: 5) { items { title slug } } }" },
    // Unexpected errors are already masked (and logged) by useErrorMapping; keep Yoga's own masking as
    // a second net for errors raised outside execution.
    maskedErrors: true,
    logging: false,
    plugins: [useErrorMapping({ logger: services.logger })],
    context: ({ req }) => createGraphQLContext(prisma, services, req.caller),
  }) as ContentYoga;
}
