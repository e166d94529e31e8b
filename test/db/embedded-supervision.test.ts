// The embedded database's thread is supervised (src/db/embedded-thread-supervisor.ts): ended as a crash would end
// it, or silent past EMBEDDED_WATCHDOG_MS, it is started again on the same data folder; the outage is one
// error line, /ready answers 503 meanwhile, requests are answered 503 (never 500, never a 401 for a valid
// key), no committed write is lost, and requests after the restart are answered normally. Issue 53.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../../src/auth/workspaces.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import type { Logger } from "../../src/logger.ts";
import { expectServerErrors } from "../helpers/server-errors.ts";
import { startTestApp } from "../helpers/test-app.ts";

// Each test starts PGlite two or three times (a few seconds each on a busy 2-core machine).
const RESTARTS_TIMEOUT_MS = 120_000;

const scratch = mkdtempSync(path.join(tmpdir(), "content-supervision-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function recordingLogger() {
  const lines: Array<{ level: string; message: string }> = [];
  const at =
    (level: string) =>
    (message: string): void => {
      lines.push({ level, message });
    };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, errors: () => lines.filter((line) => line.level === "error") };
}

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the embedded database's thread", () => {
  it("is started again after it is ended, with every committed write, and says so once", {
    timeout: RESTARTS_TIMEOUT_MS,
  }, async () => {
    const { logger, errors } = recordingLogger();
    const db = await openDatabase({ kind: "embedded", dir: path.join(scratch, "killed") }, { logger });
    try {
      const { workspace } = await createWorkspace(db.prisma, "Before");
      const slugs = Array.from({ length: 20 }, (_, i) => `kept-${i}`);
      for (const slug of slugs)
        await db.prisma.category.create({ data: { workspaceId: workspace.id, name: slug, slug } });

      await db.embeddedThread?.kill();
      expect(db.isAvailable()).toBe(false);
      await expect(db.prisma.category.count()).rejects.toThrow();

      await db.embeddedThread?.whenUp();
      expect(db.isAvailable()).toBe(true);
      const kept = await db.prisma.category.findMany({ select: { slug: true }, orderBy: { slug: "asc" } });
      expect(kept.map((row) => row.slug)).toEqual([...slugs].sort());
      await db.prisma.category.create({ data: { workspaceId: workspace.id, name: "After", slug: "after" } });
      expect(await db.prisma.category.count()).toBe(21);
      expect(errors()).toEqual([
        { level: "error", message: "the embedded database's thread stopped; starting it again" },
      ]);
    } finally {
      await db.close();
    }
  });

  it("is ended and started again when a statement keeps it silent past the watchdog", {
    timeout: RESTARTS_TIMEOUT_MS,
  }, async () => {
    const { logger, errors } = recordingLogger();
    const db = await openDatabase(
      { kind: "embedded", dir: path.join(scratch, "silent"), watchdogMs: 1_500 },
      { logger },
    );
    try {
      const started = Date.now();
      await expect(db.sql.query("SELECT pg_sleep(30)")).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(15_000);
      await db.embeddedThread?.whenUp();
      expect(await db.sql.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      expect(errors()).toEqual([
        { level: "error", message: "the embedded database's thread stopped answering; starting it again" },
      ]);
    } finally {
      await db.close();
    }
  });
});

describe("the service while the embedded database is down", () => {
  it("answers /ready and requests 503, then answers normally once it is back", {
    timeout: RESTARTS_TIMEOUT_MS,
  }, async () => {
    let db: Database | undefined;
    const app = await startTestApp({
      database: async () => {
        db = await openDatabase({ kind: "embedded", dir: path.join(scratch, "app") });
        return db;
      },
    });
    try {
      const ws = await app.workspace();
      const created = await app.request("POST", "/v1/categories", {
        key: ws.privateKey,
        body: { name: "News", slug: "news" },
      });
      expect(created.status).toBe(201);
      expect((await app.request("GET", "/ready")).status).toBe(200);

      expectServerErrors();
      await db?.embeddedThread?.kill();
      const ready = await app.request("GET", "/ready");
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: "unavailable" });
      // A new key (no cached caller): its lookup meets the outage, which is never a verdict on the key.
      const during = await Promise.all([
        app.request("GET", "/v1/categories", { key: ws.publicKey }),
        app.request("POST", "/v1/categories", { key: ws.privateKey, body: { name: "Tech", slug: "tech" } }),
        app.request("POST", "/graphql", {
          key: ws.publicKey,
          body: { query: "{ categories { items { slug } } }" },
        }),
      ]);
      for (const answer of during) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get("retry-after")).toBeTruthy();
      }

      await db?.embeddedThread?.whenUp();
      await until(() => db?.isAvailable() === true);
      expect((await app.request("GET", "/ready")).status).toBe(200);
      const list = await app.request("GET", "/v1/categories", { key: ws.publicKey });
      expect(list.status).toBe(200);
      expect(list.body.categories.map((c: { slug: string }) => c.slug)).toEqual(["news"]);
      const again = await app.request("POST", "/v1/categories", {
        key: ws.privateKey,
        body: { name: "Tech", slug: "tech" },
      });
      expect(again.status).toBe(201);
    } finally {
      await app.close();
    }
  });
});
