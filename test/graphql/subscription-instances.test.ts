// Subscriptions across real instances on one PostgreSQL: a subscriber connected to instance B hears of a
// write made through instance A within a second (the append's NOTIFY wakes B's change stream).
import { afterAll, describe, expect, it } from "vitest";
import { adminWorkspace, instanceGroup } from "../helpers/server-instances.ts";
import { subscribe } from "../helpers/sse-subscription.ts";
import { storageMode } from "../helpers/test-database.ts";

const group = instanceGroup("subscriptions");
afterAll(() => group.stop());

describe.skipIf(storageMode !== "postgres")("subscriptions across instances", () => {
  it("a subscriber on B receives each change written on A within 1 s", async () => {
    const a = await group.start();
    const b = await group.start();
    const ws = await adminWorkspace(a, "Live across");
    const live = await subscribe(b.url, ws.publicKey, "subscription { contentChanged { type slug } }");
    try {
      const delays: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${a.url}/v1/tags`, {
          method: "POST",
          headers: { authorization: ws.privateKey, "content-type": "application/json" },
          body: JSON.stringify({ name: `Across ${i}`, slug: `across-${i}` }),
        });
        expect(res.status).toBe(201);
        const answered = performance.now();
        await live.waitFor((r) => r.length === i + 1, 1_000);
        delays.push(performance.now() - answered);
      }
      expect(
        live.received.map((r) => (r.data?.contentChanged as { slug: string } | undefined)?.slug),
      ).toEqual(Array.from({ length: 10 }, (_, i) => `across-${i}`));
      expect(Math.max(...delays)).toBeLessThan(1_000);
    } finally {
      live.close();
    }
  });
});
