// Every response carries an X-Request-Id (the caller's, when it sent a sane one, so ids follow a
// request across services) and every request ends in one log line with its status and duration.
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "../logger.ts";

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && SANE_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", id);
    const started = performance.now();
    res.once("finish", () => {
      logger.info("request", {
        id,
        method: req.method,
        path: req.originalUrl.split("?")[0],
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        workspace: req.caller?.workspaceId,
      });
    });
    next();
  };
}
