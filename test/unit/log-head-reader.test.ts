// The log head is read by one statement per workspace at a time, shared only by the reads that arrived
// before it started: a read never gets a head older than its own arrival (the cache's guarantee).
import { describe, expect, it } from "vitest";
import { createLogHeadReader } from "../../src/content/changes/log-head-reader.ts";
import type { SqlExecutor } from "../../src/db/sql-executor.ts";

/** A head read under the test's control: each statement waits until the test answers it. */
function controlledReads() {
  const started: { workspaceId: string; answer(head: string): void; fail(error: Error): void }[] = [];
  const read = (_sql: SqlExecutor, workspaceId: string) =>
    new Promise<string>((resolve, reject) => {
      started.push({ workspaceId, answer: resolve, fail: reject });
    });
  return { started, reader: createLogHeadReader({} as SqlExecutor, read) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("log head reader", () => {
  it("starts a statement at once when none runs", async () => {
    const { started, reader } = controlledReads();
    const head = reader("ws1");
    expect(started).toHaveLength(1);
    started[0]?.answer("7");
    expect(await head).toBe("7");
  });

  it("reads arriving while a statement runs share the next statement, never the running one", async () => {
    const { started, reader } = controlledReads();
    const first = reader("ws1");
    const second = reader("ws1");
    const third = reader("ws1");
    expect(started).toHaveLength(1);
    // The running statement's answer predates the second and third reads' arrival: not theirs.
    started[0]?.answer("7");
    expect(await first).toBe("7");
    await settled();
    expect(started).toHaveLength(2);
    started[1]?.answer("8");
    expect(await Promise.all([second, third])).toEqual(["8", "8"]);
    // Nothing waits: the next read starts its own statement.
    const fourth = reader("ws1");
    expect(started).toHaveLength(3);
    started[2]?.answer("9");
    expect(await fourth).toBe("9");
  });

  it("keeps workspaces apart", async () => {
    const { started, reader } = controlledReads();
    const a = reader("ws1");
    const b = reader("ws2");
    expect(started.map((s) => s.workspaceId)).toEqual(["ws1", "ws2"]);
    started[1]?.answer("2");
    started[0]?.answer("1");
    expect([await a, await b]).toEqual(["1", "2"]);
  });

  it("a failed statement fails only its own reads; the waiting ones get the next statement", async () => {
    const { started, reader } = controlledReads();
    const first = reader("ws1");
    const second = reader("ws1");
    started[0]?.fail(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    await settled();
    started[1]?.answer("5");
    expect(await second).toBe("5");
  });
});
