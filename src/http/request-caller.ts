// Resolves who is calling, once per request, before rate limiting and routing. It never refuses a
// request itself: the routes decide (keyed routes answer 401, the workspace path form allows none).
import type { RequestHandler } from "express";
import { keyFromAuthorizationHeader } from "../auth/api-key-format.ts";
import type { CallerResolver } from "../auth/caller-cache.ts";
import type { RequestCaller } from "../graphql/context.ts";

export type KeyState = "valid" | "missing" | "invalid";

declare module "express-serve-static-core" {
  interface Request {
    caller?: RequestCaller | null;
    keyState?: KeyState;
  }
}

export function resolveRequestCaller(resolver: CallerResolver): RequestHandler {
  return async (req, _res, next) => {
    // Resolved already by the cached-read door (src/http/cached-read-door.ts).
    if (req.keyState) {
      next();
      return;
    }
    try {
      const key = keyFromAuthorizationHeader(req.headers.authorization);
      if (!key) {
        req.keyState = "missing";
        req.caller = null;
      } else {
        const caller = await resolver.resolve(key);
        req.keyState = caller ? "valid" : "invalid";
        req.caller = caller;
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
