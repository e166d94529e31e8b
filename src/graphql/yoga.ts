// The Yoga server over the Pothos schema. The HTTP layer has already resolved the caller (and refused
// requests without a valid key), so the context only packages it.
import { createFetch } from "@whatwg-node/fetch";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { cacheControlPolicy } from "../cache/rest-answers.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { UploadTooLargeError } from "../media/upload-errors.ts";
import { DOCUMENT_BOUNDS } from "./builder.ts";
import {
  type AppServices,
  type ClientConnection,
  createGraphQLContext,
  type GraphQLContext,
  type RequestCaller,
} from "./context.ts";
import { payloadTooLargeError } from "./errors.ts";
import { schema } from "./executable-schema.ts";
import { renderGraphiQLPage } from "./graphiql-page.ts";
import { useCompiledOperations } from "./plugins/use-compiled-operations.ts";
import { useContentResponseCache } from "./plugins/use-content-response-cache.ts";
import { useErrorMapping } from "./plugins/use-error-mapping.ts";
import { useGraphQLResponseMediaType } from "./plugins/use-graphql-response-media-type.ts";
import { useNoIntrospection } from "./plugins/use-no-introspection.ts";
import { useNullByteGuard } from "./plugins/use-null-byte-guard.ts";
import { useOperationMetrics } from "./plugins/use-operation-metrics.ts";
import { usePersistedDocuments } from "./plugins/use-persisted-documents.ts";
import { usePreviewNoStore } from "./plugins/use-preview-no-store.ts";
import { useQueryBounds } from "./plugins/use-query-bounds.ts";
import { useReplicaReads } from "./plugins/use-replica-reads.ts";
import { useResponseSizeLimit } from "./plugins/use-response-size-limit.ts";
import { clientWritePosition } from "./replica-reads.ts";

export interface ServerContext {
  req: ExpressRequest & { caller?: RequestCaller | null };
  res: ExpressResponse;
}

export type ContentYoga = YogaServerInstance<ServerContext, GraphQLContext>;

export function createContentYoga(prisma: PrismaClient, services: AppServices): ContentYoga {
  const { config } = services;
  const maxBytes = config.media.maxBytes;
  const contextOf = requestContext(prisma, services);
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: {
      title: "Content service GraphQL",
      defaultQuery: "{ posts(limit: 5) { items { title slug } } }",
    },
    // Assets from this service, not a CDN (graphiql-page.ts).
    renderGraphiQL: renderGraphiQLPage,
    // Unexpected errors are already masked (and logged) by useErrorMapping; keep Yoga's own masking as
    // a second net for errors raised outside execution.
    maskedErrors: true,
    logging: false,
    // Multipart uploads (uploadMedia): without limits the parser buffers a file of any size before a
    // resolver could refuse it; with them it stops reading one byte past the media limit.
    // The other parts (`operations`, `map`) are held to the JSON body limit, and there are only those.
    fetchAPI: createFetch({
      formDataLimits: { fileSize: maxBytes, files: 1, fieldSize: config.bodyLimitBytes, fields: 2, parts: 3 },
    }),
    // Every body but a multipart upload is held to BODY_LIMIT_BYTES before Yoga reads it
    // (src/http/graphql-body.ts); multipart bodies are bounded part by part (formDataLimits above) and
    // as a whole here. Yoga's limit also keeps reading what the parser leaves unread, so the
    // connection stays usable after a refused upload (without it the next request on it hangs).
    maxRequestBodySize: config.media.maxRequestBytes,
    plugins: [
      // First: a query sent by hash becomes its document before anything reads or keys on it.
      usePersistedDocuments(),
      ...(services.contentHead && services.graphqlAnswers
        ? [
            useContentResponseCache({
              contentHead: services.contentHead,
              answers: services.graphqlAnswers,
              cacheControl: cacheControlPolicy(config.cache),
              maxResponseBytes: config.graphql.maxResponseBytes,
            }),
          ]
        : []),
      usePreviewNoStore(),
      // After the response cache's head is read (use-replica-reads.ts says why).
      ...(services.replicas ? [useReplicaReads()] : []),
      ...(services.metrics ? [useOperationMetrics(services.metrics)] : []),
      useQueryBounds({
        ...DOCUMENT_BOUNDS,
        maxDepth: config.graphql.maxDepth,
        maxIntrospectionObjects: config.graphql.maxComplexity,
      }),
      ...(config.graphql.introspection === "off" ? [useNoIntrospection()] : []),
      useResponseSizeLimit({ maxBytes: config.graphql.maxResponseBytes }),
      useGraphQLResponseMediaType(),
      // Before the error mapping: it gives compiled executions' errors their field nodes first.
      useCompiledOperations(),
      useErrorMapping({ logger: services.logger }),
      useMediaUploads(maxBytes),
      useNullByteGuard(),
    ],
    context: ({ req }) => contextOf(req),
  }) as ContentYoga;
}

/** A request's GraphQL context: its caller, and the head its answer is computed at (REST's reads too). */
export function requestContext(
  prisma: PrismaClient,
  services: AppServices,
): (req: ServerContext["req"]) => GraphQLContext {
  return (req) =>
    createGraphQLContext(
      prisma,
      services,
      req.caller,
      req.answerHead,
      clientConnection(req),
      clientWritePosition(req.headers),
    );
}

/** The request's connection as a subscription may need it (in-process executions have none). */
function clientConnection(req: ServerContext["req"]): ClientConnection | undefined {
  const { socket, res } = req;
  if (!socket || !res) return undefined;
  return {
    closeUnlessAnsweredWithin(graceMs) {
      setTimeout(() => {
        if (!res.writableFinished) socket.destroy();
      }, graceMs).unref();
    },
  };
}

/**
 * GraphQL multipart requests: an oversized file is answered with the service's own PAYLOAD_TOO_LARGE
 * error (as REST does), and files reach resolvers as the standard `File` the Upload scalar accepts —
 * the fetch ponyfill's multipart parser makes its own File class, which is not one.
 */
function useMediaUploads(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      const isMultipart = /^multipart\/form-data/i.test(request.headers.get("content-type") ?? "");
      if (!requestParser || !isMultipart) return;
      setRequestParser(async (req) => {
        let parsed: Awaited<ReturnType<typeof requestParser>>;
        try {
          parsed = await requestParser(req);
        } catch (error) {
          const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
          if (code === "REQUEST_ENTITY_TOO_LARGE")
            throw payloadTooLargeError(new UploadTooLargeError(maxBytes).message);
          throw error;
        }
        if (!("variables" in parsed) && !Array.isArray(parsed)) return parsed;
        for (const params of Array.isArray(parsed) ? parsed : [parsed]) {
          if (params.variables)
            params.variables = (await toStandardFiles(params.variables)) as Record<string, unknown>;
        }
        return parsed;
      });
    },
  };
}

async function toStandardFiles(value: unknown): Promise<unknown> {
  if (value instanceof File || typeof value !== "object" || value === null) return value;
  const candidate = value as { arrayBuffer?: unknown; name?: unknown; type?: unknown };
  if (typeof candidate.arrayBuffer === "function" && typeof candidate.name === "string") {
    const blob = value as Blob & { name: string };
    return new File([await blob.arrayBuffer()], blob.name, { type: blob.type });
  }
  if (Array.isArray(value)) return Promise.all(value.map(toStandardFiles));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = await toStandardFiles(item);
  return out;
}
