// The transform slots' fairness between workspaces: a burst of one workspace's new variants waits behind
// that workspace's own transforms, never in front of another workspace's.
import { describe, expect, it } from "vitest";
import { TransformsBusyError } from "../../src/domain/errors.ts";
import { TransformSlots } from "../../src/media/transform-slots.ts";

/** A transform that runs until the test ends it; `started` says whether it got a slot yet. */
function transform(slots: TransformSlots, workspace: string) {
  let finish = () => {};
  const state = { started: false, settled: false as boolean, error: undefined as unknown };
  const done = slots
    .run(workspace, () => {
      state.started = true;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    })
    .catch((error: unknown) => {
      state.error = error;
    })
    .finally(() => {
      state.settled = true;
    });
  return {
    state,
    async end() {
      finish();
      await done;
    },
    done,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("TransformSlots", () => {
  it("leaves one slot to other workspaces: a burst against one workspace holds all but one", async () => {
    const slots = new TransformSlots(2, 10_000);
    const burst = Array.from({ length: 5 }, () => transform(slots, "attacked"));
    await tick();
    expect(burst.map((t) => t.state.started)).toEqual([true, false, false, false, false]);
    const other = transform(slots, "other");
    await tick();
    expect(other.state.started).toBe(true);
    expect(slots.load).toEqual({ active: 2, waiting: 4 });
    await other.end();
    // The freed slot is not the burst's to take: it already holds its share.
    await tick();
    expect(burst.map((t) => t.state.started)).toEqual([true, false, false, false, false]);
    for (const t of burst) await t.end();
    expect(slots.load).toEqual({ active: 0, waiting: 0 });
  });

  it("hands a freed slot to the waiting workspaces in turn, each in its own arrival order", async () => {
    const slots = new TransformSlots(1, 10_000);
    const order: string[] = [];
    const queued = [
      ["a", "a1"],
      ["a", "a2"],
      ["a", "a3"],
      ["b", "b1"],
      ["b", "b2"],
      ["c", "c1"],
    ].map(([workspace = "", name = ""]) => {
      const t = transform(slots, workspace);
      return { name, t };
    });
    await tick();
    for (let i = 0; i < queued.length; i++) {
      const running = queued.find(({ t }) => t.state.started && !t.state.settled);
      if (!running) throw new Error("nothing runs");
      order.push(running.name);
      await running.t.end();
      await tick();
    }
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
  });

  it("refuses a transform that waited longer than the wait, and forgets it", async () => {
    const slots = new TransformSlots(1, 30);
    const running = transform(slots, "a");
    const waiting = transform(slots, "b");
    await waiting.done;
    expect(waiting.state.error).toBeInstanceOf(TransformsBusyError);
    expect(slots.load).toEqual({ active: 1, waiting: 0 });
    await running.end();
    const next = transform(slots, "b");
    await tick();
    expect(next.state.started).toBe(true);
    await next.end();
  });
});
