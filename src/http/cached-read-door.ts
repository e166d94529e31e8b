// The short way for cache hits: a read whose answer is stored for the current head is sent from here,
// on Node's own request and response, before Express sees the request — a keyed `GET /v1/…` from the
// REST answers (src/cache/rest-answers.ts), a keyed `POST /graphql` with a JSON body from the GraphQL
// answers (src/cache/graphql-answers.ts). Express's routing and Yoga's request handling are most of what
// a hit would otherwise cost (measured: a bare Express 5 app with three middlewares answers about a
// seventh of the requests per second of a bare node:http handler). Anything else — another request, an
// unknown key, a miss, a head that cannot be read, an Accept header only Yoga can negotiate — goes on to
// the full pipeline (app/routes.ts), which stores what it computes and reuses what was found out here (the
// caller, the head, the rate-limit decision, a JSON body already read), so nothing is looked up, read
// or counted twice.
//
// Why a hit may skip the route's own checks: an answer is stored under (workspace, key kind, whole URL)
// or (workspace, key kind, document, operation, variables) only after a request with exactly those
// passed every check of the full pipeline and succeeded, and none of those checks depends on anything
// else (keys have no scopes; the workspace path form compares the key's workspace with the URL's;
// private-only routes and fields check the kind). What a hit still needs is done here with the
// pipeline's own parts: the metrics observation, the request id and log line (request-log.ts), the CORS
// headers, the key resolved by the same resolver (a revoked key misses at once), the same rate-limit
// budget and headers, and the same validators and encodings. test/api/cached-read-door.test.ts compares
// both ways, header for header.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler } from "express";
import { keyFromAuthorizationHeader } from "../auth/api-key-format.ts";
import type { CallerResolver } from "../auth/caller-cache.ts";
import type { GraphQLAnswers } from "../cache/graphql-answers.ts";
import {
  answerKey,
  type CacheControlPolicy,
  type ResponseCache,
  sendJsonAnswer,
} from "../cache/rest-answers.ts";
import { regularResultMediaType } from "../graphql/plugins/use-graphql-response-media-type.ts";
import { type RateLimitIdentity, setRateLimitHeaders } from "../limits/rate-limit-middleware.ts";
import type { RateLimitDecision, RateLimiter } from "../limits/rate-limiter.ts";
import { bindCorsToKeyOrigins, setCorsHeaders } from "./cors.ts";
import { JsonTooDeepError, nestsDeeperThan } from "./json-depth.ts";
import { answeredAs } from "./route-template.ts";

declare module "express-serve-static-core" {
  interface Request {
    /** The head read for this request's workspace on its arrival, before anything was computed. */
    contentHead?: { workspaceId: string; head: string };
    /** The rate limiter's decision when the cached-read door already asked for it. */
    rateLimitDecision?: RateLimitDecision;
    /** A JSON body the cached-read door read and could not parse (the pipeline answers it). */
    unparsableBody?: Error;
  }
}

export interface CachedReadDoorDeps {
  /** The workspace's change log head (src/content/changes/log-head-reader.ts). */
  head(workspaceId: string): Promise<string>;
  rest: ResponseCache;
  graphql: GraphQLAnswers;
  callers: CallerResolver;
  limiter: RateLimiter;
  /** The budget of a request with a resolved caller: the same as the full pipeline's. */
  identify: (req: Request) => RateLimitIdentity;
  /** The pipeline's first steps, run on hits as on every other request: metrics, request log. */
  observe: RequestHandler[];
  /** BODY_LIMIT_BYTES: larger GraphQL bodies are the pipeline's to refuse. */
  bodyLimitBytes: number;
  /** The Cache-Control of answers by audience, as the pipeline sends them. */
  cacheControl: CacheControlPolicy;
  /** The client address as Express's `req.ip` reads it (TRUST_PROXY honoured), before Express runs. */
  addressOf: (req: IncomingMessage) => string;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Wraps the pipeline's entry: hits are answered here, the rest handed to `pipeline`. */
export function cachedReadDoor(deps: CachedReadDoorDeps, pipeline: Listener): Listener {
  return (req, res) => {
    const answer = shortWayFor(req, deps);
    const presented = answer ? keyFromAuthorizationHeader(req.headers.authorization) : null;
    if (!answer || !presented) {
      pipeline(req, res);
      return;
    }
    answer(deps, req as Request, res, presented).then(
      (answered) => {
        if (!answered) pipeline(req, res);
      },
      // Whatever failed here (the key lookup's database) fails in the pipeline too, and is answered there.
      () => pipeline(req, res),
    );
  };
}

type ShortWay = (
  deps: CachedReadDoorDeps,
  req: Request,
  res: ServerResponse,
  key: string,
) => Promise<boolean>;

function shortWayFor(req: IncomingMessage, deps: CachedReadDoorDeps): ShortWay | null {
  if (req.method === "GET" && req.url?.startsWith("/v1/")) return restHit;
  if (req.method !== "POST" || req.url !== "/graphql") return null;
  // Only what express.json() would read as it is: a UTF-8 JSON body of a declared length within the
  // limit, not compressed. Anything else goes to the pipeline unread.
  const type = req.headers["content-type"]?.toLowerCase().replace(/\s+/g, "");
  const length = Number(req.headers["content-length"]);
  const plainJson = type === "application/json" || type === "application/json;charset=utf-8";
  const readable = length > 0 && length <= deps.bodyLimitBytes && !req.headers["content-encoding"];
  return plainJson && readable ? graphqlHit : null;
}

/**
 * Resolves the caller as the pipeline would; null: a key that lets nobody in (unknown, malformed,
 * expired, revoked), the pipeline's to refuse: it asks the same remembered entry, so an expired key
 * costs no statement on either way.
 */
async function callerOf(deps: CachedReadDoorDeps, req: Request, presented: string) {
  const check = await deps.callers.resolve(presented, {
    address: deps.addressOf(req),
    origin: req.headers.origin,
  });
  if (check.state !== "valid") return null;
  const caller = check.caller;
  req.caller = caller;
  req.keyState = "valid";
  return caller;
}

/** Counts the request against its budget; false when over it (the pipeline sends the 429, uncounted). */
async function admitted(deps: CachedReadDoorDeps, req: Request): Promise<RateLimitDecision | null> {
  const { key, limit } = deps.identify(req);
  const decision = await deps.limiter.consume(key, limit);
  if (decision.allowed) return decision;
  req.rateLimitDecision = decision;
  return null;
}

/** The headers every response of the pipeline carries up to its handler, then `send`. */
function answerWith(
  deps: CachedReadDoorDeps,
  req: Request,
  res: ServerResponse,
  decision: RateLimitDecision,
  route: string,
  send: () => void,
): void {
  runAll(deps.observe, req, res, () => {
    setCorsHeaders(res);
    bindCorsToKeyOrigins(res, req.caller ?? null, req.headers.origin);
    setRateLimitHeaders(res, decision);
    answeredAs(res, route);
    send();
  });
}

const restHit: ShortWay = async (deps, req, res, presented) => {
  const caller = await callerOf(deps, req, presented);
  if (!caller) return false;
  // Nothing stored for this URL (a route that is never cached, a URL never asked): no head to read here.
  const key = answerKey(req, caller.workspaceId, caller.fingerprint);
  if (!deps.rest.holds(key)) return false;
  const head = await deps.head(caller.workspaceId).catch(() => null);
  if (head === null) return false;
  req.contentHead = { workspaceId: caller.workspaceId, head };
  const hit = deps.rest.peek(key, head);
  if (!hit) return false;
  const decision = await admitted(deps, req);
  if (!decision) return false;
  answerWith(deps, req, res, decision, hit.route, () => {
    deps.rest.countHit();
    sendJsonAnswer(req, res, hit, deps.cacheControl[caller.audience], deps.cacheControl.tagHeader, "HIT");
  });
  return true;
};

const graphqlHit: ShortWay = async (deps, req, res, presented) => {
  const caller = await callerOf(deps, req, presented);
  if (!caller) return false;
  const mediaType = regularResultMediaType(req.headers.accept);
  if (!mediaType) return false;
  const text = await readBody(req);
  if (text === null) {
    res.destroy();
    return true;
  }
  // As express.json() does (strict: an object or an array); the pipeline answers what does not parse.
  let body: unknown;
  try {
    if (!/^\s*[{[]/.test(text)) throw new SyntaxError("The body is not a JSON object or array");
    if (nestsDeeperThan(text)) throw new JsonTooDeepError();
    body = JSON.parse(text);
  } catch (error) {
    req.unparsableBody = error as Error;
    return false;
  }
  req.body = body;
  const params = body as {
    query?: unknown;
    operationName?: unknown;
    variables?: unknown;
    extensions?: unknown;
  };
  // Batches, persisted queries and anything odd: Yoga's to read. So are writes, never cached: a document
  // that names a mutation or subscription anywhere costs no head read here (at worst a query that only
  // mentions the word goes the long way, and is cached there).
  if (Array.isArray(body) || typeof params.query !== "string" || params.extensions !== undefined)
    return false;
  if (/\b(mutation|subscription)\b/.test(params.query)) return false;
  const head = await deps.head(caller.workspaceId).catch(() => null);
  if (head === null) return false;
  const key = deps.graphql.keyOf({
    workspaceId: caller.workspaceId,
    fingerprint: caller.fingerprint,
    query: params.query,
    operationName: params.operationName as string | null | undefined,
    variables: params.variables,
  });
  const hit = deps.graphql.peek(key, head);
  if (!hit) return false;
  const decision = await admitted(deps, req);
  if (!decision) return false;
  answerWith(deps, req, res, decision, "/graphql", () => {
    deps.graphql.countHit();
    res.setHeader("X-Cache", "HIT");
    res.statusCode = 200;
    res.setHeader("Content-Type", `${mediaType}; charset=utf-8`);
    res.setHeader("Content-Length", String(Buffer.byteLength(hit.text)));
    res.end(hit.text);
  });
  return true;
};

/** The whole body as UTF-8 text (its length was checked against the limit); null if the client left. */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.once("error", () => resolve(null));
    req.once("aborted", () => resolve(null));
  });
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
