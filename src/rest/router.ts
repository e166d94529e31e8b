// Mounts the route table under /v1: authentication rules of the REST door, input parsing, the
// in-process GraphQL execution and the reshaping into the documented bodies.

import express, { type Request, type RequestHandler, type Response, Router } from "express";
import type { z } from "zod";
import { scopeRefusal } from "../auth/access-rules.ts";
import type { ReadAudience } from "../auth/scopes.ts";
import { restAnswerDependencies } from "../cache/answer-dependencies.ts";
import {
  type AnswerAudience,
  answerKey,
  type CacheControlPolicy,
  jsonAnswer,
  type ResponseCache,
  sendJsonAnswer,
} from "../cache/rest-answers.ts";
import type { Config } from "../config.ts";
import { echoInput } from "../domain/echo-input.ts";
import type { InProcessQueries } from "../graphql/execution/in-process-queries.ts";
import type { ContentYoga } from "../graphql/yoga.ts";
import { refuseDeepJson } from "../http/json-depth.ts";
import { sendError, sendKeyRefusal } from "../http/json-errors.ts";
import { keylessCaller } from "../http/keyless-caller.ts";
import { refuseNullBytesInBody } from "../http/refuse-null-bytes.ts";
import { routeTemplateOf } from "../http/route-template.ts";
import type { Logger } from "../logger.ts";
import {
  AUTO_LOCALE_DOCUMENT,
  asksAutoLocale,
  type NegotiableLocale,
  negotiateLocale,
} from "./auto-locale.ts";
import { internalError, type RestError, restErrorFromGraphQL, validationError } from "./errors.ts";
import { executeOperation, type PreparedOperation, prepareOperation } from "./execute.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { parseQuery } from "./query-params.ts";
import { RestInputError } from "./rest-input-error.ts";
import { type RestRoute, type RouteInput, routeScopes } from "./route.ts";
import { restRoutes } from "./routes/index.ts";
import { mountTransferRoutes, type TransferDoor } from "./transfer-routes.ts";

export interface RestRouterDeps {
  yoga: ContentYoga;
  /** The routes' queries, compiled once and run without Yoga's per-request machinery. */
  queries: InProcessQueries;
  /** Whether a workspace has this id: the keyless `/v1/{workspace_id}/…` routes answer 404 otherwise. */
  workspaceExists: (id: string) => Promise<boolean>;
  config: Config;
  logger: Logger;
  /** Caller resolution and rate limiting, applied to every resource route. */
  limited: RequestHandler[];
  /** Answers of routes marked `cached`; none when CACHE=off. */
  cache?: ResponseCache;
  /** The Cache-Control of GET answers, by audience (CACHE_S_MAXAGE, CACHE_STALE_WHILE_REVALIDATE). */
  cacheControl: CacheControlPolicy;
  /** GET /v1/export and POST /v1/import (transfer-routes.ts); absent: not served. */
  transfer?: TransferDoor;
}

export function createRestRouter(deps: RestRouterDeps): Router {
  const router = Router();
  const routes = restRoutes(deps.config);
  const openapi = buildOpenApiDocument(routes, deps.config);
  router.get("/openapi.json", (_req, res) => {
    res.json(openapi);
  });

  const json = [
    express.json({ limit: deps.config.bodyLimitBytes, verify: refuseDeepJson }),
    refuseNullBytesInBody(),
  ];
  const methodsByPath = new Map<string, Set<string>>([["/openapi.json", new Set(["get"])]]);
  const autoLocale = prepareOperation(deps.yoga, deps.queries, AUTO_LOCALE_DOCUMENT, "autoLocale");
  const mounted = routes.map((route) => ({
    route,
    path: toExpressPath(route.path),
    handler: routeHandler(
      route,
      prepareOperation(deps.yoga, deps.queries, route.document, route.name),
      deps,
      autoLocale,
    ),
  }));
  // Every keyed route first: `/v1/categories/posts` (the category "posts") must never be taken for the
  // workspace path form `/v1/{workspace_id}/posts` of a workspace called "categories".
  for (const { route, path, handler } of mounted) {
    // Only routes that take a body read one: a GET or DELETE has nothing for the JSON parsers to do.
    const bodyParsers = route.body ? json : [];
    router[route.method](path, ...deps.limited, requireKey(route), ...bodyParsers, handler);
    remember(methodsByPath, path, route.method);
  }
  if (deps.transfer) {
    mountTransferRoutes(router, deps.limited, deps.transfer);
    remember(methodsByPath, "/export", "get");
    remember(methodsByPath, "/import", "post");
  }
  for (const { route, path, handler } of mounted) {
    if (!route.workspacePathForm) continue;
    router.get(`/:workspaceId${path}`, ...deps.limited, allowWorkspacePath(deps.workspaceExists), handler);
    remember(methodsByPath, `/:workspaceId${path}`, "get");
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req, res) => {
      res.setHeader("Allow", [...methods].map((m) => m.toUpperCase()).join(", "));
      sendError(
        res,
        405,
        "Method not allowed",
        `${req.method} is not allowed on ${echoInput(req.baseUrl + req.path)}`,
      );
    });
  }
  return router;
}

function routeHandler(
  route: RestRoute,
  operation: PreparedOperation,
  deps: RestRouterDeps,
  autoLocale: PreparedOperation,
): RequestHandler {
  return async (req, res, next) => {
    try {
      if (route.method === "get" && req.caller) {
        if (route.autoLocale && asksAutoLocale(req.query as Record<string, unknown>)) {
          await answerAutoLocaleRead(route, operation, deps, req, res, req.caller, autoLocale);
          return;
        }
        await answerRead(route, operation, deps, req, res, req.caller);
        return;
      }
      // A write's answer may hold a secret (a webhook endpoint's signing secret, a preview token) and
      // is never one to reuse: no cache may keep it.
      if (route.method !== "get") res.setHeader("Cache-Control", deps.cacheControl.nobody);
      const outcome = await runRoute(route, operation, deps, req, res);
      sendOutcome(res, outcome);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * A GET with `locale=auto` (auto-locale.ts): the workspace's locales are read (the `locales` query), the
 * request's Accept-Language picks one, and the read runs as if it had named that locale — its cached
 * answer stored under the URL and the locale chosen, so two Accept-Language headers that choose alike
 * share one answer and two that do not never meet. Every answer, refusals included, says `Vary:
 * Accept-Language`; a read without `locale=auto` never does. (The cached-read door never answers one:
 * it looks under the URL alone, where no answer of theirs is stored.)
 */
async function answerAutoLocaleRead(
  route: RestRoute,
  operation: PreparedOperation,
  deps: RestRouterDeps,
  req: Request,
  res: Response,
  caller: { workspaceId: string; audience: ReadAudience; fingerprint: string },
  autoLocale: PreparedOperation,
): Promise<void> {
  const result = await executeOperation(deps.yoga, deps.queries, autoLocale, {}, req, res);
  const locales = (result.data as { locales?: NegotiableLocale[] } | null | undefined)?.locales;
  if (result.errors?.length || !locales) {
    res.vary("Accept-Language");
    sendOutcome(res, result.errors?.length ? restErrorFromGraphQL(result.errors) : internalError());
    return;
  }
  await answerRead(route, operation, deps, req, res, caller, negotiateLocale(req, locales));
}

/**
 * A GET: from the response cache when the route opts in and the workspace's content has not changed
 * since the answer was stored (src/cache/rest-answers.ts), else computed (and stored); with an ETag either way.
 * Preview tokens expire and are revoked without any content change, and what they show is unpublished:
 * a read with `preview` is never looked up or stored (so neither kind of answer can reach the other),
 * and no cache anywhere may keep its answer, refusals included.
 */
async function answerRead(
  route: RestRoute,
  operation: PreparedOperation,
  deps: RestRouterDeps,
  req: Request,
  res: Response,
  caller: { workspaceId: string; audience: ReadAudience; fingerprint: string },
  /** The locale `locale=auto` chose (answerAutoLocaleRead); undefined for any other read. */
  chosenLocale?: string,
): Promise<void> {
  const preview = "preview" in req.query;
  const audience: AnswerAudience = preview ? "nobody" : caller.audience;
  const { cacheControl } = deps;
  if (preview) res.setHeader("Cache-Control", cacheControl.nobody);
  const cache = route.cached && deps.cache && !preview ? deps.cache : undefined;
  const urlKey = answerKey(req, caller.workspaceId, caller.fingerprint);
  const key = chosenLocale === undefined ? urlKey : `${urlKey}\nlocale=${chosenLocale}`;
  const varyLanguage = chosenLocale !== undefined;
  let head: string | null = null;
  if (cache && route.headInAnswer && cache.missesForAnyHead(key)) {
    // Nothing to look up for any head: the operation reads the head itself, with its first statement.
    req.answerHead = { head: null };
  } else if (cache) {
    // Read before the answer is computed: see src/cache/rest-answers.ts for why this order is never
    // stale. When it cannot be read, the request runs uncached (and meets the same trouble in its own
    // statements). The cached-read door may have read it already, on this request's arrival.
    head = await headOf(cache, req, caller.workspaceId);
    const hit = head !== null ? await cache.lookup(key, head) : undefined;
    if (hit) {
      sendJsonAnswer(req, res, hit, cacheControl[audience], cacheControl.tagHeader, "HIT", varyLanguage);
      return;
    }
  }
  const outcome = await runRoute(route, operation, deps, req, res, chosenLocale);
  if (outcome.status !== 200) {
    if (varyLanguage) res.vary("Accept-Language");
    sendOutcome(res, outcome);
    return;
  }
  head = req.answerHead ? req.answerHead.head : head;
  const computed = jsonAnswer(outcome.body, caller.workspaceId, route.tag.toLowerCase());
  const dependencies = restAnswerDependencies(
    route.name,
    caller.audience,
    computed.ids,
    req.query.query !== undefined,
    req.query.locale !== undefined,
  );
  const answer =
    cache && head !== null
      ? cache.put(key, head, routeTemplateOf(req, res), computed, dependencies)
      : computed;
  sendJsonAnswer(
    req,
    res,
    answer,
    cacheControl[audience],
    cacheControl.tagHeader,
    cache ? "MISS" : undefined,
    varyLanguage,
  );
}

function headOf(cache: ResponseCache, req: Request, workspaceId: string): Promise<string | null> {
  if (req.contentHead?.workspaceId === workspaceId) return Promise.resolve(req.contentHead.head);
  return cache.head(workspaceId).catch(() => null);
}

async function runRoute(
  route: RestRoute,
  operation: PreparedOperation,
  deps: RestRouterDeps,
  req: Request,
  res: Response,
  /** `locale=auto`'s choice: the route runs as if the request had named it. */
  chosenLocale?: string,
): Promise<RestError> {
  const query = parseQuery(route.query ?? [], req.query as Record<string, unknown>);
  if (query.problems.length) return validationError("Invalid query parameters", query.problems);
  if (chosenLocale !== undefined) query.values.locale = chosenLocale;
  let body: unknown;
  if (route.body) {
    const parsed = (route.body as z.ZodType).safeParse(req.body ?? undefined);
    if (!parsed.success) {
      return validationError(
        "Invalid request body",
        parsed.error.issues.map((issue) => ({
          field: issue.path.join(".") || "body",
          message: issue.message,
        })),
      );
    }
    body = parsed.data;
  }
  const input: RouteInput = { params: req.params as Record<string, string>, query: query.values, body, req };
  let variables: Record<string, unknown>;
  try {
    variables = await route.variables(input);
  } catch (error) {
    if (error instanceof RestInputError) return { status: error.status, body: error.body };
    throw error;
  }
  const result = await executeOperation(deps.yoga, deps.queries, operation, variables, req, res);
  if (result.errors?.length) {
    const mapped = restErrorFromGraphQL(result.errors);
    if (mapped.status === 500)
      deps.logger.error("REST operation failed", {
        route: route.name,
        errors: result.errors.map((e) => e.message),
      });
    return mapped;
  }
  if (!result.data) return internalError();
  return {
    status: route.status,
    body: route.reshape(result.data as Record<string, unknown>, input) as Record<string, unknown>,
  };
}

/** An answer computed by runRoute: its status, its headers (an error's Retry-After) and its body. */
function sendOutcome(res: Response, outcome: RestError): void {
  if (outcome.headers) res.set(outcome.headers);
  res.status(outcome.status).json(outcome.body);
}

function requireKey(route: RestRoute): RequestHandler {
  // What the route's operation needs at its root, from the one table (src/graphql/execution/scope-rules.ts).
  const scopes = routeScopes(route);
  return (req, res, next) => {
    if (!req.caller) {
      sendKeyRefusal(res, req);
      return;
    }
    // Before the body is read or validated: a key that may not call the route learns nothing more.
    for (const scope of scopes) {
      const refusal = scopeRefusal(req.caller, scope);
      if (refusal) {
        sendError(res, 403, "Forbidden", refusal, { requiredScope: scope });
        return;
      }
    }
    next();
  };
}

/** `/v1/{workspace_id}/…`: no key needed (read-only, at the unauthenticated limit), or a key of that workspace. */
function allowWorkspacePath(workspaceExists: RestRouterDeps["workspaceExists"]): RequestHandler {
  return async (req, res, next) => {
    const workspaceId = String(req.params.workspaceId);
    if (req.keyState && req.keyState !== "missing" && req.keyState !== "valid") {
      sendKeyRefusal(res, req);
      return;
    }
    if (req.caller) {
      if (req.caller.workspaceId !== workspaceId) {
        sendError(res, 403, "Forbidden", "This API key belongs to another workspace");
        return;
      }
      next();
      return;
    }
    if (!(await workspaceExists(workspaceId))) {
      sendError(res, 404, "Workspace not found", `Workspace "${echoInput(workspaceId)}" does not exist`);
      return;
    }
    req.caller = keylessCaller(workspaceId);
    next();
  };
}

function toExpressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

function remember(map: Map<string, Set<string>>, path: string, method: string): void {
  const methods = map.get(path) ?? new Set<string>();
  methods.add(method);
  map.set(path, methods);
}
