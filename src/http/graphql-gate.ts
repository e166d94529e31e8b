// /graphql needs a valid key for every operation, except two: the GraphiQL page itself (a browser's GET
// for HTML; its requests then carry the key), and, with GRAPHQL_INTROSPECTION=public (the default), a
// document that asks for nothing but introspection, so that tooling reads the schema without a key. It
// runs after the body is read (the document is in it) and after the per-address rate limit.
import type { RequestHandler } from "express";
import type { Config } from "../config.ts";
import type { RequestCaller } from "../graphql/context.ts";
import { forbiddenError, unauthenticatedError } from "../graphql/errors.ts";
import { isIntrospectionOnly } from "../graphql/execution/introspection-only.ts";
import { withPageCsp } from "./explorer-pages.ts";
import { unauthorizedMessage } from "./json-errors.ts";
import { keylessCaller } from "./keyless-caller.ts";

/**
 * Who a keyless introspection runs as: no key and no workspace. Introspection resolvers read neither;
 * every other field needs a key and never runs for this caller (the document holds none).
 */
const KEYLESS_INTROSPECTION: RequestCaller = keylessCaller("");

export function graphqlGate(options: { introspection: Config["graphql"]["introspection"] }): RequestHandler {
  return (req, res, next) => {
    const wantsGraphiQL =
      req.method === "GET" && !req.query.query && (req.headers.accept ?? "").includes("text/html");
    if (wantsGraphiQL) {
      withPageCsp(req, res, next);
      return;
    }
    if (req.caller) {
      next();
      return;
    }
    if (
      req.keyState === "missing" &&
      options.introspection === "public" &&
      isIntrospectionOnly(documentOf(req))
    ) {
      req.caller = KEYLESS_INTROSPECTION;
      next();
      return;
    }
    if (req.keyState === "refused")
      res.status(403).json({ errors: [forbiddenError(req.keyRefusal).toJSON()] });
    else res.status(401).json({ errors: [unauthenticatedError(unauthorizedMessage(req)).toJSON()] });
  };
}

/** The document a request sends, however it sends it (GET parameter, JSON, form or GraphQL body). */
function documentOf(req: Parameters<RequestHandler>[0]): unknown {
  if (req.method === "GET") return req.query.query;
  const body: unknown = req.body;
  if (typeof body === "string") {
    const type = (req.headers["content-type"] ?? "").toLowerCase();
    return type.startsWith("application/x-www-form-urlencoded")
      ? new URLSearchParams(body).get("query")
      : body;
  }
  return body && typeof body === "object" && !Array.isArray(body)
    ? (body as { query?: unknown }).query
    : undefined;
}
