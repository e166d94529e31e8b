// The short way for cache hits: a keyed `GET /v1/…` whose answer is stored for the current head is
// sent from here, on Node's own request and response, before Express sees the request. Express's
// routing is most of what a hit would otherwise cost (measured: a bare Express 5 app with three
// middlewares answers about a seventh of the requests per second of a bare node:http handler). Anything
// else — not a keyed GET under /v1, an unknown key, a miss, a head that cannot be read — goes on to the
// full pipeline (app.ts), which stores what it computes and reuses what was found out here (the caller,
// the head, the rate-limit decision), so nothing is looked up or counted twice.
//
// Why a hit may skip the route's own checks: an answer is stored under (workspace, key kind, whole URL)
// only after a request with exactly that workspace, key kind and URL passed every check of the full
// pipeline and got 200, and none of those checks depends on anything else (keys have no scopes; the
// workspace path form compares the key's workspace with the URL's; private-only routes check the kind).
// What a hit still needs is done here with the pipeline's own parts: the metrics observation, the
// request id and log line (pino-http), the CORS headers, the key resolved by the same resolver (a revoked
// key misses at once), the same rate-limit budget and headers, and the same validators and encodings
// (sendJsonAnswer). test/api/cached-read-door.test.ts compares both ways, header for header.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler } from "express";
import { keyFromAuthorizationHeader } from "../auth/api-key-format.ts";
import type { CallerResolver } from "../auth/caller-cache.ts";
import { setCorsHeaders } from "../http/cors.ts";
import { answeredAs } from "../http/route-template.ts";
import { type RateLimitIdentity, setRateLimitHeaders } from "../limits/rate-limit-middleware.ts";
import type { RateLimitDecision, RateLimiter } from "../limits/rate-limiter.ts";
import { answerKey, type ResponseCache, sendJsonAnswer } from "./response-cache.ts";

declare module "express-serve-static-core" {
  interface Request {
    /** The head read for this request's workspace on its arrival, before anything was computed. */
    contentHead?: { workspaceId: string; head: string };
    /** The rate limiter's decision when the cached-read door already asked for it. */
    rateLimitDecision?: RateLimitDecision;
  }
}

export interface CachedReadDoorDeps {
  cache: ResponseCache;
  callers: CallerResolver;
  limiter: RateLimiter;
  /** The budget of a request with a resolved caller: the same as the full pipeline's. */
  identify: (req: Request) => RateLimitIdentity;
  /** The pipeline's first steps, run on hits as on every other request: metrics, request log. */
  observe: RequestHandler[];
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Wraps the pipeline's entry: hits are answered here, the rest handed to `pipeline`. */
export function cachedReadDoor(deps: CachedReadDoorDeps, pipeline: Listener): Listener {
  return (req, res) => {
    const presented =
      req.method === "GET" && req.url?.startsWith("/v1/")
        ? keyFromAuthorizationHeader(req.headers.authorization)
        : null;
    if (!presented) {
      pipeline(req, res);
      return;
    }
    answerFromCache(deps, req as Request, res, presented).then(
      (answered) => {
        if (!answered) pipeline(req, res);
      },
      // Whatever failed here (the key lookup's database) fails in the pipeline too, and is answered there.
      () => pipeline(req, res),
    );
  };
}

/** Sends the stored answer and says so; false: the full pipeline answers. */
async function answerFromCache(
  deps: CachedReadDoorDeps,
  req: Request,
  res: ServerResponse,
  presented: string,
): Promise<boolean> {
  const caller = await deps.callers.resolve(presented);
  if (!caller) return false;
  req.caller = caller;
  req.keyState = "valid";
  const head = await deps.cache.head(caller.workspaceId).catch(() => null);
  if (head === null) return false;
  req.contentHead = { workspaceId: caller.workspaceId, head };
  const hit = deps.cache.peek(answerKey(req, caller.workspaceId, caller.keyKind), head);
  if (!hit) return false;
  const { key, limit } = deps.identify(req);
  const decision = await deps.limiter.consume(key, limit);
  // Over the limit: the pipeline sends the 429 (with this decision, not another count).
  if (!decision.allowed) {
    req.rateLimitDecision = decision;
    return false;
  }
  runAll(deps.observe, req, res, () => {
    setCorsHeaders(res);
    setRateLimitHeaders(res, decision);
    deps.cache.countHit();
    answeredAs(res, hit.route);
    sendJsonAnswer(req, res, hit, caller.keyKind, "HIT");
  });
  return true;
}

/** Runs middlewares that only decorate (they call next, synchronously or not), then `last`. */
function runAll(steps: RequestHandler[], req: Request, res: ServerResponse, last: () => void): void {
  const [step, ...rest] = steps;
  if (!step) {
    last();
    return;
  }
  step(req, res as Parameters<RequestHandler>[1], () => runAll(rest, req, res, last));
}
