// The response cache across real instances on one PostgreSQL: each instance caches in its own memory
// (and, with CACHE=redis, in Redis for all), keyed on the workspace's change-log head, so a write made
// through instance A is seen by instance B's very next read — no wait, no cross-instance purge.
import { afterAll, describe, expect, it } from "vitest";
import { adminWorkspace, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";

/**
 * Each test starts two server processes: alone a test takes 5–6 s, beside the rest of the suite on two
 * cores one has taken over 30 s (vitest's default limit).
 */
const INSTANCES = { timeout: 90_000 };

const group = instanceGroup("cache");
afterAll(() => group.stop());

describe.skipIf(storageMode !== "postgres")("the response cache across instances", INSTANCES, () => {
  it("a write through instance A is in instance B's next read, every time", async () => {
    const a = await group.start({ RATE_LIMIT_AUTHENTICATED: "100000", CACHE: "memory" });
    const b = await group.start({ RATE_LIMIT_AUTHENTICATED: "100000", CACHE: "memory" });
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

const redisUrl = process.env.REDIS_URL;

describe.skipIf(storageMode !== "postgres" || !redisUrl)(
  "CACHE=redis: answers shared by every instance",
  INSTANCES,
  () => {
    const redisGroup = instanceGroup("cache-redis");
    afterAll(() => redisGroup.stop());
    const env = { RATE_LIMIT_AUTHENTICATED: "100000", CACHE: "redis", REDIS_URL: redisUrl ?? "" };
    const GRAPHQL_QUERY = "query Tags { tags(limit: 100) { items { slug } } }";

    const restRead = async (url: string, key: string) => {
      const res = await fetch(`${url}/v1/tags?limit=100`, { headers: { authorization: key } });
      expect(res.status).toBe(200);
      return { cache: res.headers.get("x-cache"), etag: res.headers.get("etag"), body: await res.text() };
    };
    const graphqlRead = async (url: string, key: string) => {
      const res = await fetch(`${url}/graphql`, {
        method: "POST",
        headers: { authorization: key, "content-type": "application/json" },
        body: JSON.stringify({ query: GRAPHQL_QUERY }),
      });
      expect(res.status).toBe(200);
      return { cache: res.headers.get("x-cache"), body: await res.text() };
    };
    const addTag = async (url: string, key: string, slug: string) => {
      const res = await fetch(`${url}/v1/tags`, {
        method: "POST",
        headers: { authorization: key, "content-type": "application/json" },
        body: JSON.stringify({ name: slug.toUpperCase(), slug }),
      });
      expect(res.status).toBe(201);
    };

    it("an answer computed on instance A is a hit on instance B, the same bytes and ETag", async () => {
      const a = await redisGroup.start(env);
      const b = await redisGroup.start(env);
      const ws = await adminWorkspace(a, "Shared cache");
      await addTag(a.url, ws.privateKey, "first");

      const computed = await restRead(a.url, ws.publicKey);
      expect(computed.cache).toBe("MISS");
      const fromRedis = await restRead(b.url, ws.publicKey);
      expect(fromRedis).toEqual({ ...computed, cache: "HIT" });
      // Now in B's memory too: answered by the cached-read door, before Express.
      expect(await restRead(b.url, ws.publicKey)).toEqual({ ...computed, cache: "HIT" });
      // Public and private answers never mix: the private key's first read is computed.
      expect((await restRead(b.url, ws.privateKey)).cache).toBe("MISS");

      const graphqlComputed = await graphqlRead(b.url, ws.publicKey);
      expect(graphqlComputed.cache).toBe("MISS");
      expect(JSON.parse(graphqlComputed.body)).toEqual({ data: { tags: { items: [{ slug: "first" }] } } });
      expect(await graphqlRead(a.url, ws.publicKey)).toEqual({ ...graphqlComputed, cache: "HIT" });
    });

    it("a write through one instance is in the other's next read, from the shared store too", async () => {
      const a = await redisGroup.start(env);
      const b = await redisGroup.start(env);
      const ws = await adminWorkspace(a, "Shared and fresh");
      const expected: string[] = [];
      expect((await restRead(a.url, ws.publicKey)).cache).toBe("MISS");
      expect((await graphqlRead(a.url, ws.publicKey)).cache).toBe("MISS");
      for (let i = 0; i < 10; i++) {
        // What A computed last is served from Redis on B...
        expect((await restRead(b.url, ws.publicKey)).cache).toBe("HIT");
        expect((await graphqlRead(b.url, ws.publicKey)).cache).toBe("HIT");
        // ...a write through B...
        await addTag(b.url, ws.privateKey, `tag-${i}`);
        expected.push(`tag-${i}`);
        // ...and neither instance, nor Redis, has an answer for the new head: A computes it.
        const rest = await restRead(a.url, ws.publicKey);
        expect(rest.cache).toBe("MISS");
        expect(
          (JSON.parse(rest.body) as { tags: { slug: string }[] }).tags.map((t) => t.slug).sort(),
        ).toEqual([...expected].sort());
        const graphql = await graphqlRead(a.url, ws.publicKey);
        expect(graphql.cache).toBe("MISS");
        expect(
          (JSON.parse(graphql.body) as { data: { tags: { items: { slug: string }[] } } }).data.tags.items
            .map((t) => t.slug)
            .sort(),
        ).toEqual([...expected].sort());
      }
    });
  },
);
