// CACHE_S_MAXAGE and CACHE_STALE_WHILE_REVALIDATE: how long a CDN may keep public-key answers. Browsers
// still revalidate every time (max-age=0: nobody purges them); private answers never reach a shared
// cache; both doors, computed answers and hits answered by the cached-read door alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheControlPolicy } from "../../src/cache/rest-answers.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const SHARED = "public, max-age=0, s-maxage=600, stale-while-revalidate=30";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp({ env: { CACHE_S_MAXAGE: "600", CACHE_STALE_WHILE_REVALIDATE: "30" } });
  ws = await app.workspace("Behind a CDN");
  await restFixtures(app, ws.privateKey).tag("cdn");
});
afterAll(() => app?.close());

const get = (path: string, key: string) => fetch(`${app.url}${path}`, { headers: { authorization: key } });

describe("a CDN may keep public answers for CACHE_S_MAXAGE", () => {
  it("REST: public answers computed and hit carry it; private ones stay private, no-cache", async () => {
    const computed = await get("/v1/tags/cdn", ws.publicKey);
    expect(computed.headers.get("x-cache")).toBe("MISS");
    expect(computed.headers.get("cache-control")).toBe(SHARED);
    const hit = await get("/v1/tags/cdn", ws.publicKey);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.headers.get("cache-control")).toBe(SHARED);
    expect((await get("/v1/tags/cdn", ws.privateKey)).headers.get("cache-control")).toBe("private, no-cache");
  });

  it("a preview read is still kept by nobody", async () => {
    const res = await get("/v1/posts/none?preview=not-a-token", ws.publicKey);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
  });

  it("GraphQL GET: public answers carry it, private ones not", async () => {
    const url = `/graphql?query=${encodeURIComponent("{ tags { items { slug } } }")}`;
    const first = await get(url, ws.publicKey);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe(SHARED);
    expect((await get(url, ws.publicKey)).headers.get("cache-control")).toBe(SHARED);
    expect((await get(url, ws.privateKey)).headers.get("cache-control")).toBe("private, no-cache");
  });
});

describe("the policy", () => {
  it("revalidates every time unless a shared lifetime is set, and names only what is set", () => {
    const policy = (sharedMaxAgeSeconds: number, staleWhileRevalidateSeconds: number) =>
      cacheControlPolicy({ sharedMaxAgeSeconds, staleWhileRevalidateSeconds }).public;
    expect(policy(0, 0)).toBe("public, no-cache");
    expect(policy(60, 0)).toBe("public, max-age=0, s-maxage=60");
    expect(policy(0, 30)).toBe("public, max-age=0, stale-while-revalidate=30");
    expect(policy(60, 30)).toBe("public, max-age=0, s-maxage=60, stale-while-revalidate=30");
  });
});
