// CACHE=redis with Redis unreachable: the shared tier is an optimization, so reads are computed and
// cached in memory as without it — never an error, never a wait for Redis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  // Nothing listens on port 1: every command fails at once (the client queues nothing while disconnected).
  app = await startTestApp({ env: { CACHE: "redis", REDIS_URL: "redis://127.0.0.1:1" } });
  ws = await app.workspace("Redis is down");
  await restFixtures(app, ws.privateKey).tag("still-here");
});
afterAll(() => app?.close());

describe("the shared tier unreachable", () => {
  it("REST reads are computed, then served from this instance's memory", async () => {
    const started = performance.now();
    const first = await app.request("GET", "/v1/tags/still-here", { key: ws.publicKey });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-cache")).toBe("MISS");
    expect(first.body.tag.slug).toBe("still-here");
    const second = await app.request("GET", "/v1/tags/still-here", { key: ws.publicKey });
    expect(second.headers.get("x-cache")).toBe("HIT");
    expect(second.body).toEqual(first.body);
    // No wait for Redis's 200 ms command timeout, let alone its connect timeout.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("GraphQL reads too", async () => {
    const query = '{ tag(identifier: "still-here") { slug } }';
    const ask = () =>
      fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: ws.publicKey, "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
    const first = await ask();
    expect(first.status).toBe(200);
    expect(first.headers.get("x-cache")).toBe("MISS");
    expect(await first.json()).toEqual({ data: { tag: { slug: "still-here" } } });
    const second = await ask();
    expect(second.headers.get("x-cache")).toBe("HIT");
  });
});
