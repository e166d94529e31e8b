// /graphql needs a valid key for every operation, introspection included. Only the GraphiQL page
// itself (a browser's GET for HTML) is served without one; its requests then carry the key.
import type { RequestHandler } from "express";

export function graphqlGate(): RequestHandler {
  return (req, res, next) => {
    const wantsGraphiQL =
      req.method === "GET" && !req.query.query && (req.headers.accept ?? "").includes("text/html");
    if (req.caller || wantsGraphiQL) {
      next();
      return;
    }
    const message =
      req.keyState === "invalid"
        ? "The API key is invalid or has been revoked"
        : "An API key is required: send it in the Authorization header (`<key>` or `Bearer <key>`)";
    res
      .status(401)
      .json({ errors: [{ message, extensions: { code: "UNAUTHENTICATED", http: { status: 401 } } }] });
  };
}
