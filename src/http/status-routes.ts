// Liveness (/status) and readiness (/ready: the database answers) for load balancers.
import { Router } from "express";
import type { SqlExecutor } from "../db/sql-executor.ts";

export function statusRoutes(sql: SqlExecutor, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get("/status", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/ready", async (_req, res) => {
    if (isShuttingDown()) {
      res.status(503).json({ status: "shutting_down" });
      return;
    }
    try {
      await sql.query("SELECT 1");
      res.json({ status: "ready", database: "ok" });
    } catch {
      res.status(503).json({ status: "unavailable", database: "unreachable" });
    }
  });
  return router;
}
