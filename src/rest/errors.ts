// GraphQL errors (from src/graphql/errors.ts) turned into the contract's REST error bodies.
import type { GraphQLError, GraphQLFormattedError } from "graphql";
import type { FieldProblem } from "../domain/errors.ts";
import { RETRY_AFTER_TIMEOUT_SECONDS } from "../graphql/errors.ts";

export interface RestError {
  status: number;
  body: Record<string, unknown>;
  /** Response headers the error comes with (Retry-After). */
  headers?: Record<string, string>;
}

type AnyGraphQLError = GraphQLError | GraphQLFormattedError;

/**
 * A 409's `error`, by the field the conflict is about: a value already taken (a slug, a field's key, a
 * locale's code), or a state that forbids the write (the default locale, a locale another falls back to
 * or that holds translations).
 */
const CONFLICT_TITLES: Record<string, string> = {
  slug: "Slug already in use",
  key: "Key already in use",
  code: "Locale already exists",
  isDefault: "Default locale",
  fallback: "Locale in use",
  force: "Locale has translations",
};

export function restErrorFromGraphQL(errors: readonly AnyGraphQLError[]): RestError {
  const error = errors[0];
  const ext = (error?.extensions ?? {}) as Record<string, unknown>;
  const message = error?.message ?? "Unknown error";
  switch (ext.code) {
    case "UNAUTHENTICATED":
      return { status: 401, body: { error: "Unauthorized", message } };
    case "FORBIDDEN":
      return {
        status: 403,
        body: {
          error: "Forbidden",
          message,
          ...(ext.requiredScope ? { requiredScope: ext.requiredScope } : {}),
        },
      };
    case "NOT_FOUND":
      return { status: 404, body: { error: `${String(ext.resource ?? "Resource")} not found`, message } };
    case "CONFLICT": {
      const field = (ext.details as FieldProblem[] | undefined)?.[0]?.field ?? "slug";
      return { status: 409, body: { error: CONFLICT_TITLES[field] ?? "Conflict", message } };
    }
    case "BAD_USER_INPUT":
      return validationError(message, (ext.details as FieldProblem[] | undefined) ?? []);
    case "PAGE_OUT_OF_RANGE":
      return {
        status: 400,
        body: {
          error: "Invalid page number",
          details: { message, totalPages: ext.totalPages, requestedPage: ext.requestedPage },
        },
      };
    case "PAYLOAD_TOO_LARGE":
      return { status: 413, body: { error: "Payload too large", message } };
    case "RATE_LIMITED":
      return { status: 429, body: { error: "Too many requests", details: { message, statusCode: 429 } } };
    case "CURSOR_EXPIRED":
      return { status: 410, body: { error: "Cursor expired", message } };
    case "PREVIEW_TOKEN_INVALID":
      return {
        status: 403,
        body: {
          error: ext.reason === "expired" ? "Preview token expired" : "Invalid preview token",
          message,
          reason: ext.reason,
        },
      };
    case "PREVIEWS_UNAVAILABLE":
      return { status: 503, body: { error: "Previews not configured", message } };
    case "TIMEOUT":
    case "DATABASE_UNAVAILABLE":
      return {
        status: 503,
        body: { error: "Service unavailable", message },
        headers: { "Retry-After": String(RETRY_AFTER_TIMEOUT_SECONDS) },
      };
    case "STORAGE_UNAVAILABLE":
      return {
        status: 503,
        body: { error: "Storage unavailable", message },
        headers: { "Retry-After": String(ext.retryAfterSeconds) },
      };
    case "QUERY_TOO_COMPLEX":
      return { status: 400, body: { error: "Query too complex", message } };
    default:
      return internalError();
  }
}

export function validationError(message: string, details: FieldProblem[]): RestError {
  return { status: 400, body: { error: "Validation failed", message, details } };
}

export function internalError(): RestError {
  return {
    status: 500,
    body: {
      error: "Internal server error",
      message: "Something went wrong on our side; the error has been logged",
    },
  };
}
