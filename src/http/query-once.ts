// Express 5 parses the query string again (with qs) on every read of `req.query`: it is a getter on the
// request prototype. The pipeline reads it several times per request (the null-byte guard, the preview
// check, the route's parameters), so it is parsed once here and kept as the request's own property.
import type { RequestHandler } from "express";

export function parseQueryOnce(): RequestHandler {
  return (req, _res, next) => {
    Object.defineProperty(req, "query", {
      value: req.query,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    next();
  };
}
