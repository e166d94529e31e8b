// Every response carries an X-Request-Id (the caller's, when it sent a sane one, so ids follow a
// request across services) and every request ends in one log line (pino-http) with its id, method,
// path (never the query string, which may hold a key), status, duration and workspace.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import { type Logger, pinoOf } from "../logger.ts";

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestLog(logger: Logger): RequestHandler {
  const pino = pinoOf(logger);
  if (!pino.isLevelEnabled("info")) {
    // Request lines are "info": below that level pino-http would still build a child logger for every
    // request (bindings, redaction) to write nothing. The id is all that remains.
    return (req, res, next) => {
      req.id = requestId(req, res);
      next();
    };
  }
  return pinoHttp({
    logger: pino,
    genReqId: requestId,
    // The line's fields are flat and few (below); pino-http's whole req/res objects would carry headers.
    serializers: { req: () => undefined, res: () => undefined },
    customAttributeKeys: { responseTime: "ms" },
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request",
    // The line's own fields, set once when the response is done (pino-http's customProps would bind
    // them twice: at the start, when the workspace is not known yet, and again at the end).
    customSuccessObject: (req: IncomingMessage, res: ServerResponse, logged: { ms?: number }) => ({
      ...requestFields(req, res),
      ms: logged.ms,
    }),
    customErrorObject: (
      req: IncomingMessage,
      res: ServerResponse,
      _error: Error,
      logged: { ms?: number },
    ) => ({
      ...requestFields(req, res),
      ms: logged.ms,
    }),
    // Request lines are "info" whatever the status: errors are logged where they happen, with causes.
    customLogLevel: () => "info",
  }) as unknown as RequestHandler;
}

/** The caller's X-Request-Id when it is sane, else a new one; echoed on the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers["x-request-id"];
  const id = typeof incoming === "string" && SANE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader("X-Request-Id", id);
  return id;
}

function requestFields(req: IncomingMessage, res: ServerResponse): Record<string, unknown> {
  const express = req as Request;
  return {
    id: req.id,
    method: req.method,
    path: (express.originalUrl ?? req.url ?? "").split("?")[0],
    status: res.statusCode,
    workspace: express.caller?.workspaceId,
  };
}
