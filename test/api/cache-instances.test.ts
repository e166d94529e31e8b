// The response cache across real instances on one PostgreSQL: each instance caches in its own memory,
// keyed on the workspace's change-log head, so a write made through instance A is seen by instance B's
// very next read — no wait, no cross-instance purge.
import { afterAll, describe, expect, it } from "vitest";
import { adminWorkspace, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";

const group = instanceGroup("cache");
afterAll(() => group.stop());

describe.skipIf(storageMode !== "postgres")("the response cache across instances", () => {
  it("a write through instance A is in instance B's next read, every time", async () => {
    const a = await group.start({ RATE_LIMIT_AUTHENTICATED: "100000" });
    const b = await group.start({ RATE_LIMIT_AUTHENTICATED: "100000" });
    const ws = await adminWorkspace(a, "Two caches");
    const readTags = async () => {
      const res = await fetch(`${b.url}/v1/tags?limit=100`, { headers: { authorization: ws.publicKey } });
      expect(res.status).toBe(200);
      return {
        cache: res.headers.get("x-cache"),
        slugs: ((await res.json()) as { tags: { slug: string }[] }).tags.map((t) => t.slug).sort(),
      };
    };
    const expected: string[] = [];
    for (let i = 0; i < 20; i++) {
      // B has the answer cached...
      await readTags();
      expect((await readTags()).cache).toBe("HIT");
      // ...A writes...
      const res = await fetch(`${a.url}/v1/tags`, {
        method: "POST",
        headers: { authorization: ws.privateKey, "content-type": "application/json" },
        body: JSON.stringify({ name: `T${i}`, slug: `t${i}` }),
      });
      expect(res.status).toBe(201);
      expected.push(`t${i}`);
      // ...and B's next read has it.
      const after = await readTags();
      expect(after.cache).toBe("MISS");
      expect(after.slugs).toEqual([...expected].sort());
    }
  });
});
