// The OpenAPI 3.1 document of /v1, generated from the route table: paths, parameters, bodies and
// response schemas all come from the same declarations that parse requests and shape responses.
import { z } from "zod";
import { ALL_SCOPES, type Scope } from "../auth/scopes.ts";
import type { Config } from "../config.ts";
import { declaredTags, operationDescription } from "./openapi-descriptions.ts";
import { TRANSFER_TAG, transferPaths } from "./openapi-transfer.ts";
import { MAX_INTEGER, type QueryParam } from "./query-params.ts";
import { type RestRoute, routeScopes } from "./route.ts";

type JsonSchema = Record<string, unknown>;

const ErrorBody = z.object({
  error: z.string(),
  message: z.string(),
  details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  reason: z
    .enum(["invalid", "expired", "revoked", "other-post"])
    .optional()
    .describe("Why a preview token was refused (403 of a read with `preview`)"),
  requiredScope: z
    .enum(ALL_SCOPES as [Scope, ...Scope[]])
    .optional()
    .describe("The scope the key lacks (403; docs/api-keys.md)"),
});
const PageErrorBody = z.object({
  error: z.literal("Invalid page number"),
  details: z.object({ message: z.string(), totalPages: z.number().int(), requestedPage: z.number().int() }),
});
const RateLimitBody = z.object({
  error: z.literal("Too many requests"),
  details: z.object({ message: z.string(), statusCode: z.literal(429) }),
});

function schemaOf(type: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(type, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonSchema;
  return schema;
}

function parameterSchema(param: QueryParam): JsonSchema {
  switch (param.kind) {
    case "integer":
      return {
        type: "integer",
        minimum: param.min,
        maximum: param.max ?? MAX_INTEGER,
        ...(param.default ? { default: param.default } : {}),
      };
    case "enum":
      return {
        type: "string",
        enum: [...param.values],
        ...(param.default ? { default: param.default } : {}),
      };
    case "list":
      return { type: "array", items: { type: "string" } };
    case "string":
      return { type: "string", ...(param.maxLength ? { maxLength: param.maxLength } : {}) };
  }
}

/**
 * Why `/v1/{workspace_id}/posts` and `/v1/posts/{identifier}` (and the other pairs linters call
 * ambiguous) never answer the same URL: said in the document, where a reader of it looks.
 */
const WORKSPACE_ID_DESCRIPTION =
  "The workspace's id (as `workspace.id` shows it, a cuid such as `cm3x…`): never the name of a collection, " +
  "so `/v1/posts/{identifier}` and `/v1/{workspace_id}/posts` cannot match the same URL; the keyed form is matched first.";

const jsonContent = (schema: JsonSchema) => ({ "application/json": { schema } });
const errorResponse = (description: string, schema: JsonSchema = { $ref: "#/components/schemas/Error" }) => ({
  description,
  content: jsonContent(schema),
});

function operation(route: RestRoute, workspaceForm: boolean): JsonSchema {
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const parameters = [
    ...(workspaceForm ? ["workspace_id"] : []).concat(pathParams).map((name) => ({
      name,
      in: "path",
      required: true,
      ...(name === "workspace_id" ? { description: WORKSPACE_ID_DESCRIPTION } : {}),
      schema: route.integerPathParams?.includes(name) ? { type: "integer", minimum: 1 } : { type: "string" },
    })),
    ...(route.query ?? []).map((param) => ({
      name: param.name,
      in: "query",
      required: false,
      description: param.description,
      schema: parameterSchema(param),
      ...(param.kind === "list" ? { style: "form", explode: false } : {}),
    })),
  ];
  const responses: Record<string, unknown> = {
    [route.status]: { description: "Success", content: jsonContent(schemaOf(route.response, "output")) },
    400: errorResponse(
      "Invalid parameters or body",
      route.query?.some((q) => q.name === "page")
        ? { oneOf: [{ $ref: "#/components/schemas/Error" }, { $ref: "#/components/schemas/PageError" }] }
        : { $ref: "#/components/schemas/Error" },
    ),
    401: errorResponse("Missing or invalid API key"),
    429: errorResponse("Rate limit exceeded", { $ref: "#/components/schemas/RateLimitError" }),
    500: errorResponse("Server failure"),
  };
  const forbidden = forbiddenWhen(route, workspaceForm);
  if (forbidden) responses[403] = errorResponse(forbidden);
  if (pathParams.length || workspaceForm) responses[404] = errorResponse("Not found");
  if (route.method === "post" || route.method === "patch")
    responses[409] = errorResponse("Slug (or key) already in use");
  if (route.multipart) responses[413] = errorResponse("File too large");
  for (const [status, why] of Object.entries(route.errors ?? {})) responses[status] = errorResponse(why);
  if (route.body) {
    responses[413] = errorResponse("Body too large");
    responses[415] = errorResponse("Body encoding not supported");
  }
  return {
    operationId: workspaceForm ? `${route.name}ByWorkspace` : route.name,
    summary: workspaceForm ? `${route.summary} (workspace path form: no key needed)` : route.summary,
    description: operationDescription(route, workspaceForm),
    tags: [route.tag],
    ...(workspaceForm ? { security: [{}, { apiKey: [] }] } : {}),
    parameters,
    ...(route.body
      ? { requestBody: { required: true, content: jsonContent(schemaOf(route.body, "input")) } }
      : {}),
    ...(route.multipart
      ? {
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: route.multipart.schema,
                  required: route.multipart.required,
                },
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** Why an operation can answer 403, or null when it cannot. */
function forbiddenWhen(route: RestRoute, workspaceForm: boolean): string | null {
  const reasons = [
    ...routeScopes(route)
      .filter((scope) => scope !== "content:read")
      .map((scope) => `the key lacks the ${scope} scope (public keys have content:read only)`),
    routeScopes(route).includes("content:read") ? "the key lacks the content:read scope" : null,
    route.query?.some((param) => param.name === "status")
      ? "drafts (`status=draft|all`) need a private key"
      : null,
    route.query?.some((param) => param.name === "preview")
      ? "the preview token is not valid, has expired or been revoked, or opens another post (`reason`)"
      : null,
    workspaceForm ? "the key belongs to another workspace" : null,
  ].filter((reason): reason is string => reason !== null);
  return reasons.length ? `Forbidden: ${reasons.join("; ")}` : null;
}

export function buildOpenApiDocument(
  routes: readonly RestRoute[],
  config: Pick<Config, "publicUrl">,
): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (path: string, method: string, op: JsonSchema) => {
    paths[path] = { ...(paths[path] ?? {}), [method]: op };
  };
  for (const route of routes) {
    add(`/v1${route.path}`, route.method, operation(route, false));
    if (route.workspacePathForm) add(`/v1/{workspace_id}${route.path}`, "get", operation(route, true));
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Headless Content Service API",
      version: "1.0.0",
      description:
        "REST contract of the content service. The same data is available through GraphQL at /graphql.",
      contact: { name: "The operators of this content service" },
      // package.json is private, with no licence: the API is not offered under an open one.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    tags: [...declaredTags(routes), TRANSFER_TAG],
    servers: [{ url: config.publicUrl ?? "/" }],
    security: [{ apiKey: [] }],
    paths: { ...paths, ...transferPaths() },
    components: {
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "`<key>` or `Bearer <key>`",
        },
      },
      schemas: {
        Error: schemaOf(ErrorBody, "output"),
        PageError: schemaOf(PageErrorBody, "output"),
        RateLimitError: schemaOf(RateLimitBody, "output"),
      },
    },
  };
}
