// A browser's EventSource cannot send headers, so the SSE form of a subscription (GET /graphql with
// `accept: text/event-stream`) may carry a **public** key in the query string, `?key=pk_…` (the name
// Ghost's Content API uses for the same purpose). Never a private key: a URL ends up in logs, proxies
// and browser history, and a public key is meant to be seen anyway. Any other request reads its key from
// the Authorization header only.
import type { RequestHandler } from "express";
import { kindOfKey } from "../auth/api-key-format.ts";
import { badRequestError } from "../graphql/errors.ts";
import { sendGraphQLError } from "./graphql-body.ts";

export const EVENT_SOURCE_KEY_PARAM = "key";

export function keyFromEventSourceQuery(): RequestHandler {
  return (req, res, next) => {
    const key = req.query[EVENT_SOURCE_KEY_PARAM];
    if (key === undefined || req.headers.authorization !== undefined) return next();
    const isEventSource = req.method === "GET" && (req.headers.accept ?? "").includes("text/event-stream");
    const refuse = (message: string) => sendGraphQLError(res, badRequestError(message));
    if (!isEventSource)
      return refuse(
        "A key in the query string is only read for a subscription over EventSource (GET with accept: text/event-stream); send it in the Authorization header",
      );
    if (typeof key !== "string" || kindOfKey(key) !== "public")
      return refuse(
        "Only a public key (pk_…) may be sent in a URL; a private key would end up in logs and browser history — send it in the Authorization header, and revoke it if it was exposed",
      );
    req.headers.authorization = key;
    next();
  };
}
