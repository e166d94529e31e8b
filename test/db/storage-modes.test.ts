// One code path, two storage modes: the embedded database persists across restarts under DATA_DIR,
// and a PostgreSQL server is used when DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../../src/auth/workspaces.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/database.ts";
import { EmbeddedDatabaseLockedError } from "../../src/db/embedded-lock.ts";
import { openTestDatabase } from "../helpers/test-database.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "content-storage-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("embedded mode (default)", () => {
  it("is chosen when DATABASE_URL is not set, under DATA_DIR", () => {
    expect(loadConfig({ DATA_DIR: dataDir }).database).toEqual({
      kind: "embedded",
      dir: path.join(dataDir, "db"),
      watchdogMs: 60_000,
    });
  });

  it("keeps data across a restart", async () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    if (config.database.kind !== "embedded") throw new Error("expected embedded");
    const first = await openDatabase(config.database);
    const { workspace } = await createWorkspace(first.prisma, "Persistent");
    await first.prisma.category.create({ data: { workspaceId: workspace.id, name: "Kept", slug: "kept" } });
    await first.close();

    const second = await openDatabase(config.database);
    try {
      expect(await second.prisma.category.findMany({ select: { name: true, slug: true } })).toEqual([
        { name: "Kept", slug: "kept" },
      ]);
      expect(await second.migrate()).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it("refuses a second opener of the same directory while the first holds it", async () => {
    const dir = path.join(dataDir, "locked");
    const holder = await openDatabase({ kind: "embedded", dir });
    try {
      await expect(openDatabase({ kind: "embedded", dir })).rejects.toBeInstanceOf(
        EmbeddedDatabaseLockedError,
      );
    } finally {
      await holder.close();
    }
    const again = await openDatabase({ kind: "embedded", dir });
    await again.close();
  });
});

describe.runIf(process.env.DATABASE_URL)("PostgreSQL mode", () => {
  it("is chosen when DATABASE_URL is set, and runs the same migrations and queries", async () => {
    expect(loadConfig({ DATABASE_URL: process.env.DATABASE_URL }).database).toMatchObject({
      kind: "postgres",
    });
    const db = await openTestDatabase();
    try {
      expect(db.kind).toBe("postgres");
      const { workspace } = await createWorkspace(db.prisma, "On a server");
      expect(
        await db.prisma.workspace.findUnique({ where: { id: workspace.id }, select: { name: true } }),
      ).toEqual({ name: "On a server" });
      expect(await db.migrate()).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
