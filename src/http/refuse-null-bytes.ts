// Refuses requests carrying U+0000 before they reach a handler: the database cannot store or even
// compare text holding one (see src/domain/null-bytes.ts), so such input is the client's mistake.
// GraphQL requests are checked by src/graphql/use-null-byte-guard.ts instead, to answer GraphQL errors.
import type { RequestHandler } from "express";
import { echoInput } from "../domain/echo-input.ts";
import { findUnstorableText } from "../domain/null-bytes.ts";
import { sendError } from "./json-errors.ts";

/**
 * For the URL: a path with `%00` names nothing that can exist (404); a query parameter holding a NUL
 * is a validation error (400). Mount it in front of the routes.
 */
export function refuseNullBytesInUrl(): RequestHandler {
  return (req, res, next) => {
    // req.path is still percent-encoded (the HTTP parser refuses a raw NUL in the request line).
    if (/%00/i.test(req.path)) {
      sendError(res, 404, "Not found", "No resource exists at a path containing %00 (U+0000)");
      return;
    }
    const found = findUnstorableText(req.query);
    if (found !== null) {
      sendError(res, 400, "Validation failed", "Invalid query parameters", {
        details: [{ field: echoInput(found.path || "query"), message: found.problem }],
      });
      return;
    }
    next();
  };
}

/** For a parsed JSON body: put it right after the JSON parser of a router. */
export function refuseNullBytesInBody(): RequestHandler {
  return (req, res, next) => {
    const found = findUnstorableText(req.body);
    if (found !== null) {
      sendError(res, 400, "Validation failed", "Invalid request body", {
        details: [{ field: echoInput(found.path || "body"), message: found.problem }],
      });
      return;
    }
    next();
  };
}
