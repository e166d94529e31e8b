// Resolves who is calling, once per request, before rate limiting and routing. It never refuses a
// request itself: the routes decide (keyed routes answer 401, the workspace path form allows none).
import type { RequestHandler } from "express";
import { keyFromAuthorizationHeader } from "../auth/api-key-format.ts";
import type { CallerResolver } from "../auth/caller-cache.ts";
import type { RequestCaller } from "../graphql/context.ts";
import { clientAddress } from "../limits/rate-budgets.ts";

/** What the presented key turned out to be (resolve-api-key.ts KeyCheck), or that none was sent. */
export type KeyState = "valid" | "missing" | "invalid" | "malformed" | "expired";

declare module "express-serve-static-core" {
  interface Request {
    caller?: RequestCaller | null;
    keyState?: KeyState;
    /** When the presented key expired (keyState "expired"), for the 401's message. */
    keyExpiredAt?: string;
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
        const check = await resolver.resolve(key, clientAddress(req));
        req.keyState = check.state;
        req.caller = check.state === "valid" ? check.caller : null;
        if (check.state === "expired") req.keyExpiredAt = check.expiredAt;
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
