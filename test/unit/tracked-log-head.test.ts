// On a database only this process writes, the change log head is read once and kept until a committed
// change of its workspace (src/content/changes/tracked-log-head.ts). A kept head is never older than the last
// change this process has heard of: a change that says where it left the head keeps that head (the
// larger one, when news come out of order), one that does not forgets it, and a read that was under
// way when a change came is not kept.
import { describe, expect, it } from "vitest";
import { createTrackedLogHead, type HeadMoved } from "../../src/content/changes/tracked-log-head.ts";

/** Head reads under the test's control, and the change listener the tracked head registers. */
function tracked() {
  const started: { workspaceId: string; answer(head: string): void; fail(error: Error): void }[] = [];
  let heard: (moves: readonly HeadMoved[]) => void = () => {};
  const head = createTrackedLogHead(
    (workspaceId) =>
      new Promise<string>((resolve, reject) => {
        started.push({ workspaceId, answer: resolve, fail: reject });
      }),
    (listener) => {
      heard = listener;
    },
  );
  return {
    started,
    head,
    changed: (...workspaceIds: string[]) => heard(workspaceIds.map((workspaceId) => ({ workspaceId }))),
    moved: (workspaceId: string, head: number) => heard([{ workspaceId, head }]),
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("tracked log head", () => {
  it("reads a workspace's head once and keeps it while nothing changes", async () => {
    const { started, head } = tracked();
    const first = head("ws1");
    started[0]?.answer("7");
    expect(await first).toBe("7");
    await settled();
    expect(await head("ws1")).toBe("7");
    expect(await head("ws1")).toBe("7");
    expect(started).toHaveLength(1);
  });

  it("reads again after a committed change of that workspace, and only of that one", async () => {
    const { started, head, changed } = tracked();
    const one = head("ws1");
    const two = head("ws2");
    started[0]?.answer("7");
    started[1]?.answer("3");
    await Promise.all([one, two]);
    await settled();
    changed("ws1");
    const after = head("ws1");
    expect(started).toHaveLength(3);
    started[2]?.answer("8");
    expect(await after).toBe("8");
    expect(await head("ws2")).toBe("3");
    expect(started).toHaveLength(3);
  });

  it("does not keep a head whose read was under way when a change came", async () => {
    const { started, head, changed } = tracked();
    const during = head("ws1");
    changed("ws1");
    // The read may have seen the content before the change: it answers its own caller, nothing later.
    started[0]?.answer("7");
    expect(await during).toBe("7");
    await settled();
    const next = head("ws1");
    expect(started).toHaveLength(2);
    started[1]?.answer("8");
    expect(await next).toBe("8");
  });

  it("keeps nothing when a read fails: the next read asks again", async () => {
    const { started, head } = tracked();
    const failing = head("ws1");
    started[0]?.fail(new Error("database unreachable"));
    await expect(failing).rejects.toThrow("database unreachable");
    await settled();
    const next = head("ws1");
    expect(started).toHaveLength(2);
    started[1]?.answer("9");
    expect(await next).toBe("9");
  });

  it("keeps the head a write says it left, with no read", async () => {
    const { started, head, moved } = tracked();
    moved("ws1", 12);
    expect(await head("ws1")).toBe("12");
    expect(started).toHaveLength(0);
  });

  it("keeps the larger head when a later write's news came first", async () => {
    const { started, head, moved } = tracked();
    moved("ws1", 12);
    moved("ws1", 11);
    expect(await head("ws1")).toBe("12");
    moved("ws1", 13);
    expect(await head("ws1")).toBe("13");
    expect(started).toHaveLength(0);
  });

  it("takes a write's head over a kept one, and a read under way does not replace it", async () => {
    const { started, head, moved } = tracked();
    const first = head("ws1");
    started[0]?.answer("7");
    await first;
    await settled();
    const during = head("ws1");
    expect(started).toHaveLength(1);
    expect(await during).toBe("7");
    moved("ws1", 9);
    expect(await head("ws1")).toBe("9");
    expect(started).toHaveLength(1);
  });

  it("a read under way when a write's news came answers its caller but is not kept over them", async () => {
    const { started, head, moved } = tracked();
    const during = head("ws1");
    moved("ws1", 9);
    started[0]?.answer("8");
    expect(await during).toBe("8");
    await settled();
    expect(await head("ws1")).toBe("9");
    expect(started).toHaveLength(1);
  });
});
