// The shape of one entry of the REST route table: everything about a /v1 route in one place, as
// data — its HTTP form, its inputs, the GraphQL operation it runs and how the result is reshaped.

import type { Request } from "express";
import { parse } from "graphql";
import type { z } from "zod";
import type { Scope } from "../auth/scopes.ts";
import { schema } from "../graphql/executable-schema.ts";
import { scopesOfDocument } from "../graphql/execution/scope-rules.ts";
import type { QueryParam } from "./query-params.ts";

export type HttpMethod = "get" | "post" | "patch" | "delete";

export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  req: Request;
}

export interface RestRoute {
  /** operationId in the OpenAPI document. */
  name: string;
  method: HttpMethod;
  /** OpenAPI-style path below /v1, e.g. `/posts/{identifier}`. */
  path: string;
  /** Path parameters that are whole numbers (the OpenAPI document types them so); the rest are strings. */
  integerPathParams?: readonly string[];
  tag: string;
  summary: string;
  // Which key may call it is not stated here: it is the scopes its document's fields need, from the
  // one table (src/graphql/execution/scope-rules.ts scopesOfDocument), checked before the body is read.
  /** Also served read-only at `/v1/{workspace_id}<path>`, without a key. */
  workspacePathForm?: boolean;
  /**
   * A GET whose answer depends on nothing but the workspace's content, so the response cache may keep
   * it until the change log moves (src/cache/rest-answers.ts). Not for answers that change with time
   * or with state that records no event (webhook endpoints, the change log itself as it is pruned).
   */
  cached?: boolean;
  /**
   * The operation reads the change log head with its first statement (the post list: AnswerHead in
   * src/graphql/context.ts): a miss is computed without reading the head before it, and stored under
   * the head it was computed at.
   */
  headInAnswer?: boolean;
  /**
   * Takes `locale=auto`: the locale is chosen from Accept-Language among the workspace's locales
   * (src/rest/auto-locale.ts), and the answer varies by it.
   */
  autoLocale?: boolean;
  query?: readonly QueryParam[];
  body?: z.ZodType;
  /** Multipart form instead of JSON (media upload); parsed by the route's own `input`. */
  multipart?: { schema: Record<string, unknown>; required: string[] };
  /** The GraphQL operation; parsed and validated once at start. */
  document: string;
  /** GraphQL variables from the parsed request. */
  variables(input: RouteInput): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The response body from the operation's `data`. */
  reshape(data: Record<string, unknown>, input: RouteInput): unknown;
  status: number;
  /** Error statuses only this route answers, with why (OpenAPI), e.g. the change log's 410. */
  errors?: Record<number, string>;
  /** Schema of the success body (OpenAPI and response tests). */
  response: z.ZodType;
}

const scopesByRoute = new WeakMap<RestRoute, Scope[]>();

/** The scopes a route's operation needs (src/graphql/execution/scope-rules.ts), worked out once per route. */
export function routeScopes(route: RestRoute): Scope[] {
  let scopes = scopesByRoute.get(route);
  if (!scopes) {
    scopes = scopesOfDocument(schema, parse(route.document));
    scopesByRoute.set(route, scopes);
  }
  return scopes;
}
