// /graphql needs a valid key for every operation, introspection included. Only the GraphiQL page
// itself (a browser's GET for HTML) is served without one; its requests then carry the key.
import type { RequestHandler } from "express";
import { unauthenticatedError } from "../graphql/errors.ts";
import { withPageCsp } from "./explorer-pages.ts";
import { unauthorizedMessage } from "./json-errors.ts";

export function graphqlGate(): RequestHandler {
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
    res.status(401).json({ errors: [unauthenticatedError(unauthorizedMessage(req.keyState)).toJSON()] });
  };
}
