// The OpenAPI operations of GET /v1/export and POST /v1/import (transfer-routes.ts), which run no GraphQL
// operation and so have no entry in the route table to describe them from.
import { BYTE_ROUTE_SCOPES } from "../graphql/execution/scope-rules.ts";
import { UPLOAD_SOURCES } from "./transfer-routes.ts";

type JsonSchema = Record<string, unknown>;

export const TRANSFER_TAG = {
  name: "Transfer",
  description:
    "The workspace as one file: the portable export archive out, an archive or another system's export in (the CLI's export and import, over HTTP).",
};

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const needs = (route: keyof typeof BYTE_ROUTE_SCOPES) =>
  `It needs a private key of the workspace with the ${BYTE_ROUTE_SCOPES[route]} scope.`;

export function transferPaths(): Record<string, Record<string, JsonSchema>> {
  const refusals = {
    401: error("Missing or invalid API key"),
    403: error(`Forbidden: the key lacks the ${BYTE_ROUTE_SCOPES["GET /export"]} scope`),
    429: error("Rate limit exceeded"),
    500: error("Server failure"),
  };
  return {
    "/v1/export": {
      get: {
        operationId: "exportWorkspace",
        summary: "Download the workspace as a portable .tar.gz (records as NDJSON, media files; no keys)",
        description: `Streams the archive \`content-gateway export\` writes. ${needs("GET /export")}`,
        tags: [TRANSFER_TAG.name],
        responses: {
          200: {
            description: "The archive",
            content: {
              "application/gzip": { schema: { type: "string", contentMediaType: "application/gzip" } },
            },
          },
          ...refusals,
        },
      },
    },
    "/v1/import": {
      post: {
        operationId: "importIntoWorkspace",
        summary:
          "Import an uploaded export archive, Ghost JSON or WordPress WXR file (idempotent: the same file again changes nothing)",
        description: `Runs the import the CLI runs and answers its summary. ${needs("POST /import")}`,
        tags: [TRANSFER_TAG.name],
        parameters: [
          {
            name: "from",
            in: "query",
            required: false,
            description: "What the file is; default: told from its content",
            schema: { type: "string", enum: [...UPLOAD_SOURCES] },
          },
          {
            name: "dryRun",
            in: "query",
            required: false,
            description: "Count what would change, write nothing",
            schema: { type: "boolean", default: false },
          },
          {
            name: "webhooks",
            in: "query",
            required: false,
            description: "false: the import's events send no webhooks",
            schema: { type: "boolean", default: true },
          },
        ],
        requestBody: {
          required: true,
          content: {
            "application/octet-stream": {
              schema: { type: "string", contentMediaType: "application/octet-stream" },
            },
          },
        },
        responses: {
          200: {
            description:
              "The import's summary: counts by kind and outcome, conflicts, failures, what was left out",
            content: { "application/json": { schema: { type: "object" } } },
          },
          400: error("Invalid parameters, or a file that is not an export of the kind named"),
          413: error("Larger than IMPORT_UPLOAD_MAX_BYTES"),
          ...refusals,
        },
      },
    },
  };
}
