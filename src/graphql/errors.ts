// Every error a client can cause is made here, so codes, HTTP statuses and shapes stay consistent
// across GraphQL and the REST layer (which reads `extensions.code` and `extensions.http.status`).
import { GraphQLError } from "graphql";

export type ErrorCode =
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "UNAUTHENTICATED"
  | "BAD_USER_INPUT"
  | "CONFLICT"
  | "RATE_LIMITED"
  | "PAGE_OUT_OF_RANGE"
  | "PAYLOAD_TOO_LARGE"
  | "QUERY_TOO_COMPLEX";

export interface FieldProblem {
  field: string;
  message: string;
}

const httpStatus: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  PAGE_OUT_OF_RANGE: 400,
  PAYLOAD_TOO_LARGE: 413,
  QUERY_TOO_COMPLEX: 400,
};

function clientError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: httpStatus[code] }, ...extra } });
}

export function notFoundError(resource: string, identifier: string): GraphQLError {
  return clientError("NOT_FOUND", `${resource} "${identifier}" does not exist in this workspace`, {
    resource,
  });
}

export function forbiddenError(
  message = "This operation needs a private API key; public keys can only read",
): GraphQLError {
  return clientError("FORBIDDEN", message);
}

export function unauthenticatedError(
  message = "A valid API key is required in the Authorization header",
): GraphQLError {
  return clientError("UNAUTHENTICATED", message);
}

export function userInputError(message: string, details: FieldProblem[] = []): GraphQLError {
  return clientError("BAD_USER_INPUT", message, { details });
}

export function conflictError(message: string, field = "slug"): GraphQLError {
  return clientError("CONFLICT", message, { details: [{ field, message }] });
}

export function pageOutOfRangeError(requestedPage: number, totalPages: number): GraphQLError {
  return clientError(
    "PAGE_OUT_OF_RANGE",
    `Page ${requestedPage} does not exist; there are ${totalPages} pages`,
    {
      requestedPage,
      totalPages,
    },
  );
}

export function payloadTooLargeError(message: string): GraphQLError {
  return clientError("PAYLOAD_TOO_LARGE", message);
}

/** A query deeper, wider or costlier than the limits of the complexity plugin (see builder.ts). */
export function queryTooComplexError(
  measure: "depth" | "breadth" | "complexity",
  actual: number,
  max: number,
): GraphQLError {
  return clientError(
    "QUERY_TOO_COMPLEX",
    `Query ${measure} ${actual} exceeds the limit of ${max}; ask for less in one request`,
    {
      measure,
      actual,
      max,
    },
  );
}

export function rateLimitedError(message: string, retryAfterSeconds: number): GraphQLError {
  return clientError("RATE_LIMITED", message, { retryAfterSeconds });
}
