// Wrong admin tokens are limited per client address (RATE_LIMIT_UNAUTHENTICATED per window), so the
// token cannot be guessed at speed. Only failures count; once a client is over its budget every admin
// request it sends is a 429, the right token included, while other clients are not affected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const ADMIN_TOKEN = "the-right-admin-token-0123456789";
const WRONG_TOKEN = "a-wrong-admin-token-0123456789ab";
const BUDGET = 3;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    env: { ADMIN_TOKEN, RATE_LIMIT_UNAUTHENTICATED: String(BUDGET), TRUST_PROXY: "loopback" },
  });
});
afterAll(async () => app?.close());

/** Lists workspaces as the client at `address` (the test app trusts X-Forwarded-For from loopback). */
function listWorkspaces(address: string, token: string) {
  return app.request("GET", "/admin/workspaces", {
    headers: { authorization: `Bearer ${token}`, "x-forwarded-for": address },
  });
}

describe("admin API: failed authentications", () => {
  it("a right token is never counted", async () => {
    for (let i = 0; i < BUDGET * 3; i++)
      expect((await listWorkspaces("203.0.113.1", ADMIN_TOKEN)).status).toBe(200);
    const wrong = await listWorkspaces("203.0.113.1", WRONG_TOKEN);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("x-ratelimit-remaining")).toBe(String(BUDGET - 1));
  });

  it("past the budget, a client gets 429 with the rate-limit headers, even for the right token", async () => {
    const client = "203.0.113.2";
    for (let i = 1; i <= BUDGET; i++) {
      const res = await listWorkspaces(client, WRONG_TOKEN);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("Unauthorized");
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(BUDGET));
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(BUDGET - i));
    }
    for (const token of [WRONG_TOKEN, ADMIN_TOKEN]) {
      const res = await listWorkspaces(client, token);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        error: "Too many requests",
        details: { message: expect.stringMatching(/^Rate limit of 3 requests exceeded/), statusCode: 429 },
      });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it("another client's right token still works, and its own failures have their own budget", async () => {
    for (let i = 0; i <= BUDGET; i++) await listWorkspaces("203.0.113.3", WRONG_TOKEN);
    expect((await listWorkspaces("203.0.113.3", ADMIN_TOKEN)).status).toBe(429);
    expect((await listWorkspaces("203.0.113.4", ADMIN_TOKEN)).status).toBe(200);
    expect((await listWorkspaces("203.0.113.4", WRONG_TOKEN)).status).toBe(401);
  });

  it("concurrent guesses get no more answers than the budget", async () => {
    const guesses = Array.from({ length: 20 }, () => listWorkspaces("203.0.113.5", WRONG_TOKEN));
    const statuses = (await Promise.all(guesses)).map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(BUDGET);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - BUDGET);
  });

  it("every admin route is guarded, writes included", async () => {
    const headers = { authorization: `Bearer ${WRONG_TOKEN}`, "x-forwarded-for": "203.0.113.6" };
    const attempts = [
      () => app.request("POST", "/admin/workspaces", { headers, body: { name: "W" } }),
      () => app.request("GET", "/admin/workspaces/x/keys", { headers }),
      () => app.request("POST", "/admin/keys/x/revoke", { headers }),
    ];
    const statuses: number[] = [];
    for (let i = 0; i <= BUDGET; i++) statuses.push((await attempts[i % attempts.length]!()).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const created = await app.request("POST", "/admin/workspaces", {
      headers: { ...headers, authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { name: "W" },
    });
    expect(created.status).toBe(429);
    expect(await app.db.prisma.workspace.count({ where: { name: "W" } })).toBe(0);
  });
});
