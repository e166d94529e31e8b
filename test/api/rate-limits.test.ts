// Rate limits apply to every resource route, REST and GraphQL alike, per API key; requests without a
// valid key are limited per client address. (The sliding window itself, Redis sharing and outages are
// proven in test/limits.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

describe("rate limits in the app", () => {
  let app: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    app = await startTestApp({
      env: { RATE_LIMIT_AUTHENTICATED: "6", RATE_LIMIT_UNAUTHENTICATED: "3", RATE_LIMIT_WINDOW_MS: "60000" },
    });
    ws = await app.workspace();
  });
  afterAll(async () => app.close());

  it("counts REST and GraphQL requests of one key against one budget, with headers on every response", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await app.request("GET", "/v1/posts", { key: ws.publicKey });
      statuses.push(res.status);
      expect(res.headers.get("x-ratelimit-limit")).toBe("6");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(5 - i));
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: ws.publicKey, "content-type": "application/json" },
        body: JSON.stringify({ query: "{ categories { pagination { totalItems } } }" }),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);

    const limited = await app.request("GET", "/v1/categories", { key: ws.publicKey });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: "Too many requests",
      details: { message: expect.any(String), statusCode: 429 },
    });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    const graphqlLimited = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.publicKey, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ categories { pagination { totalItems } } }" }),
    });
    expect(graphqlLimited.status).toBe(429);
    // GraphQL clients read the limit as a GraphQL error.
    expect(await graphqlLimited.json()).toEqual({
      errors: [
        {
          message: expect.stringContaining("Rate limit of 6 requests exceeded"),
          extensions: { code: "RATE_LIMITED", http: { status: 429 }, retryAfterSeconds: expect.any(Number) },
        },
      ],
    });
    expect(Number(graphqlLimited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    // Another key of the same workspace has its own budget.
    expect((await app.request("GET", "/v1/posts", { key: ws.privateKey })).status).toBe(200);
  });

  it("limits requests without a valid key per client address, invalid keys included", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await app.request("GET", `/v1/${ws.id}/posts`)).status);
    statuses.push((await app.request("GET", "/v1/posts", { key: "pk_not-a-real-key" })).status);
    statuses.push((await app.request("GET", `/v1/${ws.id}/categories`)).status);
    expect(statuses).toEqual([200, 200, 401, 429]);
  });

  it("does not limit health checks", async () => {
    for (let i = 0; i < 5; i++) expect((await app.request("GET", "/status")).status).toBe(200);
  });
});
