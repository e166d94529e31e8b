// Every error a client can cause is made here, so codes, HTTP statuses and shapes stay consistent
// across GraphQL and the REST layer (which reads `extensions.code` and `extensions.http.status`).
// The domain's own errors (src/domain/errors.ts) get theirs from `fromDomainError`, called once for
// every resolver by use-error-mapping.ts; the factories of the same kinds build on it, so each kind's
// message and shape are written once.
import { GraphQLError } from "graphql";
import {
  ConflictError,
  type DomainError,
  type FieldProblem,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  PreviewTokenError,
  StorageUnavailableError,
} from "../domain/errors.ts";
import type { StreamEndReason } from "./live/change-stream.ts";

export type ErrorCode =
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "UNAUTHENTICATED"
  | "BAD_USER_INPUT"
  | "CONFLICT"
  | "RATE_LIMITED"
  | "PAGE_OUT_OF_RANGE"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "BAD_REQUEST"
  | "QUERY_TOO_COMPLEX"
  | "CURSOR_EXPIRED"
  | "PERSISTED_QUERY_NOT_FOUND"
  | "PREVIEW_TOKEN_INVALID"
  | "PREVIEWS_UNAVAILABLE"
  | "SUBSCRIPTION_ENDED"
  | "TIMEOUT"
  | "DATABASE_UNAVAILABLE"
  | "STORAGE_UNAVAILABLE";

const httpStatus: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  PAGE_OUT_OF_RANGE: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BAD_REQUEST: 400,
  QUERY_TOO_COMPLEX: 400,
  CURSOR_EXPIRED: 410,
  PERSISTED_QUERY_NOT_FOUND: 404,
  // The key is fine (not a 401, which clients read as "fix your API key"); the token grants nothing.
  PREVIEW_TOKEN_INVALID: 403,
  PREVIEWS_UNAVAILABLE: 503,
  // Only ever the last event of a stream already answered 200; the status says "not the client's input".
  SUBSCRIPTION_ENDED: 503,
  TIMEOUT: 503,
  // The database could not be reached for a moment (restarting): the same request may succeed later.
  DATABASE_UNAVAILABLE: 503,
  // The service's own dependency failed, not the request: the same request may succeed later.
  STORAGE_UNAVAILABLE: 503,
};

function clientError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: httpStatus[code] }, ...extra } });
}

/** The GraphQL error a domain error stands for. */
export function fromDomainError(error: DomainError): GraphQLError {
  if (error instanceof NotFoundError)
    return clientError("NOT_FOUND", error.message, { resource: error.resource });
  if (error instanceof InvalidInputError)
    return clientError("BAD_USER_INPUT", error.message, { details: error.details });
  if (error instanceof ConflictError)
    return clientError("CONFLICT", error.message, {
      details: [{ field: error.field, message: error.message }],
    });
  if (error instanceof ForbiddenError)
    return clientError(
      "FORBIDDEN",
      error.message,
      error.requiredScope ? { requiredScope: error.requiredScope } : {},
    );
  if (error instanceof PayloadTooLargeError) return clientError("PAYLOAD_TOO_LARGE", error.message);
  if (error instanceof PreviewTokenError)
    return clientError("PREVIEW_TOKEN_INVALID", error.message, { reason: error.problem });
  if (error instanceof StorageUnavailableError) return storageUnavailableError(error);
  throw new TypeError(`No GraphQL error for ${error.name}`);
}

/**
 * The media storage did not answer within its deadline. Yoga sends `extensions.http.headers` as response
 * headers, so /graphql answers carry Retry-After as REST's do (src/rest/errors.ts reads the seconds).
 */
function storageUnavailableError({ message, retryAfterSeconds }: StorageUnavailableError): GraphQLError {
  return new GraphQLError(message, {
    extensions: {
      code: "STORAGE_UNAVAILABLE",
      http: { status: httpStatus.STORAGE_UNAVAILABLE, headers: { "Retry-After": String(retryAfterSeconds) } },
      retryAfterSeconds,
    },
  });
}

export function notFoundError(resource: string, identifier: string): GraphQLError {
  return fromDomainError(new NotFoundError(resource, identifier));
}

/**
 * A record that existed when a request found it and was deleted by another request before this one
 * was done with it (Prisma's "record not found"): the 404 the request would have had a moment later.
 */
export function vanishedRecordError(resource: string): GraphQLError {
  return clientError("NOT_FOUND", `This ${resource.toLowerCase()} no longer exists in this workspace`, {
    resource,
  });
}

export function forbiddenError(message?: string, options: { requiredScope?: string } = {}): GraphQLError {
  return fromDomainError(new ForbiddenError(message, options.requiredScope));
}

export function unauthenticatedError(
  message = "A valid API key is required in the Authorization header",
): GraphQLError {
  return clientError("UNAUTHENTICATED", message);
}

/** A change log cursor older than the retention period: what followed it may be gone. */
export function cursorExpiredError(retentionDays: number): GraphQLError {
  return clientError(
    "CURSOR_EXPIRED",
    `This cursor is older than the change log's retention (${retentionDays} days) and events after it may have been deleted; resync the content, then read the log again without \`after\``,
  );
}

export function userInputError(message: string, details: FieldProblem[] = []): GraphQLError {
  return fromDomainError(new InvalidInputError(message, details));
}

export function conflictError(message: string, field?: string): GraphQLError {
  return fromDomainError(new ConflictError(message, field));
}

export function pageOutOfRangeError(requestedPage: number, totalPages: number): GraphQLError {
  return clientError(
    "PAGE_OUT_OF_RANGE",
    `Page ${requestedPage} does not exist; there ${totalPages === 1 ? "is 1 page" : `are ${totalPages} pages`}`,
    {
      requestedPage,
      totalPages,
    },
  );
}

export function payloadTooLargeError(message: string): GraphQLError {
  return fromDomainError(new PayloadTooLargeError(message));
}

/** A /graphql request whose body has a type GraphQL over HTTP does not define. */
export function unsupportedMediaTypeError(message: string): GraphQLError {
  return clientError("UNSUPPORTED_MEDIA_TYPE", message);
}

/** A request that is not a GraphQL request at all (a body that cannot be read). */
export function badRequestError(message: string): GraphQLError {
  return clientError("BAD_REQUEST", message);
}

/**
 * A query over one of the limits checked before it runs: the Pothos complexity plugin's depth, breadth
 * and complexity (builder.ts), the document bounds of use-query-bounds.ts, or the answer's size.
 * `actual` is null where counting stopped at the limit.
 */
export function queryTooComplexError(
  measure: QueryMeasure,
  actual: number | null,
  max: number,
): GraphQLError {
  const found = actual === null ? "exceeds" : `${actual} exceeds`;
  return clientError(
    "QUERY_TOO_COMPLEX",
    `Query ${measure} ${found} the limit of ${max}; ask for less in one request`,
    { measure, actual, max },
  );
}

export type QueryMeasure =
  | "depth"
  | "breadth"
  | "complexity"
  | "tokens"
  | "aliases"
  | "directives"
  | "introspection"
  | "response bytes";

export function rateLimitedError(
  message: string,
  retryAfterSeconds: number,
  extra: Record<string, unknown> = {},
): GraphQLError {
  return clientError("RATE_LIMITED", message, { retryAfterSeconds, ...extra });
}

/** What a client waits before trying again after a TIMEOUT: the deadline is per statement, not per key. */
export const RETRY_AFTER_TIMEOUT_SECONDS = 1;

/**
 * A statement of this request reached the database's deadline (DATABASE_STATEMENT_TIMEOUT_MS) and was
 * cancelled: the service is busy or the request asks for too much at once. Never the client's fault
 * alone, so 503 with Retry-After rather than a 4xx.
 */
export function timeoutError(): GraphQLError {
  return new GraphQLError(
    "The request took longer than the database allows one request; try again shortly, or ask for less at once",
    {
      extensions: {
        code: "TIMEOUT",
        http: { status: httpStatus.TIMEOUT, headers: { "Retry-After": String(RETRY_AFTER_TIMEOUT_SECONDS) } },
      },
    },
  );
}

/**
 * The database could not be reached, or dropped the connection, while answering this request
 * (src/db/database-unreachable.ts): a server restarting, the embedded database's thread being started
 * again. Never the client's fault nor a verdict on its key, so 503 with Retry-After.
 */
export function databaseUnavailableError(): GraphQLError {
  return new GraphQLError("The database is unavailable for a moment; try again shortly", {
    extensions: {
      code: "DATABASE_UNAVAILABLE",
      http: {
        status: httpStatus.DATABASE_UNAVAILABLE,
        headers: { "Retry-After": String(RETRY_AFTER_TIMEOUT_SECONDS) },
      },
    },
  });
}

/**
 * The last event of a subscription the service ended: UNAUTHENTICATED when its key was revoked or expired (the
 * client needs another key), SUBSCRIPTION_ENDED when it left too many changes unread (it may subscribe
 * again and read faster). `reason` names which.
 */
export function subscriptionEndedError(reason: StreamEndReason, maxQueued: number): GraphQLError {
  if (reason === "API_KEY_EXPIRED")
    return clientError(
      "UNAUTHENTICATED",
      "The API key of this subscription expired; the subscription has ended",
      {
        reason,
      },
    );
  return reason === "API_KEY_REVOKED"
    ? clientError(
        "UNAUTHENTICATED",
        "The API key of this subscription was revoked; the subscription has ended",
        {
          reason,
        },
      )
    : clientError(
        "SUBSCRIPTION_ENDED",
        `More than ${maxQueued} changes waited unread; the subscription has ended (subscribe again and read faster)`,
        { reason },
      );
}

/**
 * A persisted query's hash the service does not hold (yet): Apollo's APQ message and code, which
 * clients (Apollo Client, urql, Relay helpers) read as "send the document along with the hash".
 */
export function persistedQueryNotFoundError(): GraphQLError {
  return clientError("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound");
}

/**
 * Previews need a signing secret every instance shares: with DATABASE_URL and no PREVIEW_SECRET there is
 * none (the embedded mode makes its own), so previews are off rather than signed by one instance only.
 */
export function previewsUnavailableError(): GraphQLError {
  return clientError(
    "PREVIEWS_UNAVAILABLE",
    "Previews are not configured on this service: set PREVIEW_SECRET (the same on every instance)",
  );
}
