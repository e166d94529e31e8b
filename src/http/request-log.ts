// Every response carries an X-Request-Id (the caller's, when it sent a sane one, so ids follow a
// request across services) and every request ends in one log line with its id, method, path (never the
// query string, which may hold a key), status, duration and workspace.
//
// The line is written by the app's own pino logger (same destination, level and format as every other
// line), but not through pino-http, and not through the logger's redaction: measured on a cache hit
// (`npm run bench:hits -- --profile`), pino-http's child logger per request and the redaction of every
// line's fields cost about 30 µs, a third of the hit. The line's fields are these six, none of them a
// secret, so a child logger made once without redaction writes them.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler } from "express";
import { type Logger, pinoOf } from "../logger.ts";

declare module "node:http" {
  interface IncomingMessage {
    /** This request's id, as its response's X-Request-Id says. */
    id?: string;
  }
}

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestLog(logger: Logger): RequestHandler {
  const pino = pinoOf(logger);
  if (!pino.isLevelEnabled("info")) {
    // Request lines are "info": below that level there is nothing to write, and the id is all that remains.
    return (req, res, next) => {
      req.id = requestId(req, res);
      next();
    };
  }
  // Nothing in a request line is redacted: it holds only the fields below.
  const lines = pino.child({}, { redact: [] });
  return (req, res, next) => {
    const startedAt = performance.now();
    req.id = requestId(req, res);
    // "close" comes once per response, after "finish" when it was sent, alone when the client left first.
    res.once("close", () => {
      const ms = Math.round((performance.now() - startedAt) * 1000) / 1000;
      const fields = requestFields(req, res);
      // Request lines are "info" whatever the status: errors are logged where they happen, with causes.
      lines.info(res.writableFinished ? { ...fields, ms } : { ...fields, ms, aborted: true }, "request");
    });
    next();
  };
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
