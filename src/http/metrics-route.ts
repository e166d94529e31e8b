// GET /metrics (Prometheus text format) and the request measurements behind it (src/metrics.ts).
//
// /metrics is for the operator, not for API keys: it answers only `Authorization: Bearer <token>` with
// METRICS_TOKEN, or ADMIN_TOKEN when no METRICS_TOKEN is set; with neither configured it does not exist
// (404), like the admin API.
import { timingSafeEqual } from "node:crypto";
import type { RequestHandler, Router } from "express";
import { Router as createRouter } from "express";
import type { ServiceMetrics } from "../metrics.ts";
import { sendError } from "./json-errors.ts";
import { routeTemplateOf } from "./route-template.ts";

/**
 * Measures every request: its duration and status under its route template (the mount path plus the
 * matched route's pattern, e.g. `/v1/posts/:identifier`; never the raw URL, whose ids would make a series
 * each), and the SQL statements run for it.
 */
export function observeRequests(metrics: ServiceMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const request = metrics.beginRequest();
    res.once("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      request.done({ method: req.method, route: routeTemplateOf(req, res), status: res.statusCode }, seconds);
    });
    request.run(next);
  };
}

export function metricsRoute(metrics: ServiceMetrics, token: string | undefined): Router {
  const router = createRouter();
  const expected = token ? Buffer.from(token) : null;
  router.get("/metrics", async (req, res) => {
    if (!expected) {
      sendError(res, 404, "Not found", "Metrics are off: set METRICS_TOKEN (or ADMIN_TOKEN) to serve them");
      return;
    }
    const presented = Buffer.from(/^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "");
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      sendError(res, 401, "Unauthorized", "/metrics needs `Authorization: Bearer <METRICS_TOKEN>`");
      return;
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
