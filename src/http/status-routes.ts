// Liveness (/status) and readiness (/ready: the database answers) for load balancers.
import { Router } from "express";
import type { Database } from "../db/database.ts";

export function statusRoutes(
  db: Pick<Database, "sql" | "isAvailable">,
  isShuttingDown: () => boolean,
): Router {
  const router = Router();
  router.get("/status", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/ready", async (_req, res) => {
    if (isShuttingDown()) {
      res.status(503).json({ status: "shutting_down" });
      return;
    }
    // Known down (the embedded database's thread is being started again): say so without queueing a
    // statement behind the ones that wait for it.
    if (!db.isAvailable()) {
      res.status(503).json({ status: "unavailable", database: "restarting" });
      return;
    }
    try {
      await db.sql.query("SELECT 1");
      res.json({ status: "ready", database: "ok" });
    } catch {
      res.status(503).json({ status: "unavailable", database: "unreachable" });
    }
  });
  return router;
}
