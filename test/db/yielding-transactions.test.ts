// The embedded database runs each statement on the thread that serves requests: a write transaction
// must give the event loop a turn before each of its statements (src/db/yielding-transactions.ts), or
// a cached read arriving during a write waits for the whole write.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.ts";

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ kind: "memory" });
}, 120_000);
afterAll(async () => {
  await db?.close();
});

describe("embedded write transactions", () => {
  it("let callbacks waiting for the event loop run before each statement", async () => {
    const order: string[] = [];
    await db.prisma.$transaction(async (tx) => {
      setImmediate(() => order.push("turn 1"));
      await tx.$queryRawUnsafe("SELECT 1");
      order.push("statement 1");
      setImmediate(() => order.push("turn 2"));
      await tx.$executeRawUnsafe("SELECT 2");
      order.push("statement 2");
    });
    expect(order).toEqual(["turn 1", "statement 1", "turn 2", "statement 2"]);
  });

  it("still run their statements in order and commit them together", async () => {
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("CREATE TABLE yield_probe (n int)");
      await tx.$executeRawUnsafe("INSERT INTO yield_probe VALUES (1), (2)");
    });
    const rows = await db.prisma.$queryRawUnsafe<{ n: number }[]>("SELECT n FROM yield_probe ORDER BY n");
    expect(rows.map((row) => row.n)).toEqual([1, 2]);
  });
});
