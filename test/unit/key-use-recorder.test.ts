// When API keys were last used is written in batches on a timer (auth/key-use-recorder.ts). The timer
// exists only while uses wait: an idle recorder keeps nothing alive, so an app that is never stopped
// (as tests build them) leaves its database collectable once it is closed.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKeyUseRecorder } from "../../src/auth/key-use-recorder.ts";
import type { SqlExecutor } from "../../src/db/sql-executor.ts";

/** A store that keeps the key ids each batched write names. */
function recordingStore() {
  const batches: string[][] = [];
  const sql: SqlExecutor = {
    exec: async () => {},
    query: async <Row>(_statement: string, params?: unknown[]) => {
      batches.push(params?.[0] as string[]);
      return [] as Row[];
    },
  };
  return { sql, batches };
}

describe("the key use recorder's timer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds no timer until a use is noted, and none once it is written", async () => {
    const { sql, batches } = recordingStore();
    const recorder = createKeyUseRecorder(sql, { flushEveryMs: 5_000 });
    expect(vi.getTimerCount()).toBe(0);

    recorder.noteUse("key-a", "127.0.0.1");
    recorder.noteUse("key-b", "127.0.0.1");
    expect(vi.getTimerCount()).toBe(1);

    await vi.advanceTimersByTimeAsync(5_000);
    expect(batches).toEqual([["key-a", "key-b"]]);
    expect(vi.getTimerCount()).toBe(0);
    await recorder.stop();
  });

  it("writes a use noted while a write is in flight with the next write", async () => {
    let release: () => void = () => {};
    const batches: string[][] = [];
    const sql: SqlExecutor = {
      exec: async () => {},
      query: async <Row>(_statement: string, params?: unknown[]) => {
        batches.push(params?.[0] as string[]);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return [] as Row[];
      },
    };
    const recorder = createKeyUseRecorder(sql, { flushEveryMs: 5_000 });
    recorder.noteUse("key-a", "127.0.0.1");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(batches).toEqual([["key-a"]]);

    // Its timer comes due while the first write still waits on the store.
    recorder.noteUse("key-b", "127.0.0.1");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(batches).toEqual([["key-a"]]);

    release();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(batches).toEqual([["key-a"], ["key-b"]]);
    expect(vi.getTimerCount()).toBe(0);
    await recorder.stop();
  });

  it("writes what waits when stopped, and leaves no timer", async () => {
    const { sql, batches } = recordingStore();
    const recorder = createKeyUseRecorder(sql, { flushEveryMs: 5_000 });
    recorder.noteUse("key-a", "127.0.0.1");
    await recorder.stop();
    expect(batches).toEqual([["key-a"]]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
