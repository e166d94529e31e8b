// Resolves who is calling, once per request, before rate limiting and routing. It never refuses a
// request itself: the routes decide (keyed routes answer 401, the workspace path form allows none).
import type { RequestHandler } from "express";
import { keyFromAuthorizationHeader } from "../auth/api-key-format.ts";
import type { CallerResolver } from "../auth/caller-cache.ts";
import type { RequestCaller } from "../graphql/context.ts";
import { clientAddress } from "../limits/rate-budgets.ts";
import { bindCorsToKeyOrigins } from "./cors.ts";

/** What the presented key turned out to be (resolve-api-key.ts KeyCheck), or that none was sent. */
export type KeyState = "valid" | "missing" | "invalid" | "malformed" | "expired" | "refused";

declare module "express-serve-static-core" {
  interface Request {
    caller?: RequestCaller | null;
    keyState?: KeyState;
    /** When the presented key expired (keyState "expired"), for the 401's message. */
    keyExpiredAt?: string;
    /** Why a valid key was refused here (keyState "refused": an origin or address it is not bound to), for the 403. */
    keyRefusal?: string;
  }
}

export function resolveRequestCaller(resolver: CallerResolver): RequestHandler {
  return async (req, res, next) => {
    // Resolved already by the cached-read door (src/http/cached-read-door.ts).
    if (req.keyState) {
      bindCorsToKeyOrigins(res, req.caller ?? null, req.headers.origin);
      next();
      return;
    }
    try {
      const key = keyFromAuthorizationHeader(req.headers.authorization);
      if (!key) {
        req.keyState = "missing";
        req.caller = null;
      } else {
        const check = await resolver.resolve(key, {
          address: clientAddress(req),
          origin: req.headers.origin,
        });
        req.keyState = check.state;
        req.caller = check.state === "valid" ? check.caller : null;
        if (check.state === "expired") req.keyExpiredAt = check.expiredAt;
        if (check.state === "refused") req.keyRefusal = check.message;
        bindCorsToKeyOrigins(res, check.state === "refused" ? "refused" : req.caller, req.headers.origin);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
