// What a client sees over HTTP, whichever store counts. Run by the memory and the Redis test files.
import { afterEach, expect, it } from "vitest";
import type { RateLimiter } from "../../../src/limits/rate-limiter.ts";
import {
  AUTHENTICATED_LIMIT,
  header,
  type Sent,
  sendMany,
  startApp,
  type TestApp,
  UNAUTHENTICATED_LIMIT,
  WINDOW_MS,
} from "./app.ts";

/** Builds a fresh store with the given window and no state shared with earlier calls. */
export type FreshLimiter = (windowMs: number) => RateLimiter;

export function httpContract(makeLimiter: FreshLimiter): void {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const start = async (): Promise<TestApp> => {
    const limiter = makeLimiter(WINDOW_MS);
    cleanups.push(() => limiter.close());
    const app = await startApp(limiter);
    cleanups.push(() => app.close());
    return app;
  };

  it("admits exactly 200 of 260 rapid requests with one key and answers the rest 429 without work", async () => {
    const app = await start();
    const before = Math.floor(Date.now() / 1000);
    const results = await sendMany(260, () => [app.url, { "x-api-key": "secret-a" }]);

    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(200);
    expect(limited).toHaveLength(60);
    expect(app.handled()).toBe(200);

    for (const r of results) {
      expect(header(r, "X-RateLimit-Limit")).toBe(AUTHENTICATED_LIMIT);
      // Reset is when the oldest admitted request leaves the 10 s window.
      expect(header(r, "X-RateLimit-Reset")).toBeGreaterThanOrEqual(before + WINDOW_MS / 1000);
      expect(header(r, "X-RateLimit-Reset")).toBeLessThanOrEqual(
        Math.ceil(Date.now() / 1000) + WINDOW_MS / 1000,
      );
    }
    // Each admitted request saw a different count, even though they arrived 50 at a time.
    const remaining = ok.map((r) => header(r, "X-RateLimit-Remaining")).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(ok.every((r) => r.headers.get("Retry-After") === null)).toBe(true);

    for (const r of limited) expectTooManyRequests(r, AUTHENTICATED_LIMIT);
  });

  it("limits unauthenticated requests and invalid keys to 10 per client address", async () => {
    const app = await start();
    const from = (address: string, apiKey?: string) => ({
      "x-forwarded-for": address,
      ...(apiKey ? { "x-api-key": apiKey } : {}),
    });

    const first = await sendMany(15, () => [app.url, from("203.0.113.7")]);
    expect(first.filter((r) => r.status === 200)).toHaveLength(UNAUTHENTICATED_LIMIT);
    for (const r of first.filter((r) => r.status === 429)) expectTooManyRequests(r, UNAUTHENTICATED_LIMIT);
    expect(first.every((r) => header(r, "X-RateLimit-Limit") === UNAUTHENTICATED_LIMIT)).toBe(true);

    // An invalid key draws on the same address budget, which is spent.
    const [invalid] = await sendMany(1, () => [app.url, from("203.0.113.7", "not-a-key")]);
    expectTooManyRequests(invalid!, UNAUTHENTICATED_LIMIT);
    // Another address has its own budget, and so does a valid key from the spent address.
    const other = await sendMany(12, () => [app.url, from("203.0.113.8", "not-a-key")]);
    expect(other.filter((r) => r.status === 200)).toHaveLength(UNAUTHENTICATED_LIMIT);
    const [valid] = await sendMany(1, () => [app.url, from("203.0.113.7", "secret-a")]);
    expect(valid!.status).toBe(200);
    expect(header(valid!, "X-RateLimit-Limit")).toBe(AUTHENTICATED_LIMIT);
  });

  it("gives two API keys separate budgets", async () => {
    const app = await start();
    const results = await sendMany(520, (i) => [app.url, { "x-api-key": i % 2 ? "secret-a" : "secret-b" }]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(400);
  });
}

export function expectTooManyRequests(r: Sent, limit: number): void {
  expect(r.status).toBe(429);
  expect(r.body).toEqual({
    error: "Too many requests",
    details: { message: expect.stringMatching(/^Rate limit of \d+ requests exceeded/), statusCode: 429 },
  });
  expect(header(r, "X-RateLimit-Limit")).toBe(limit);
  expect(header(r, "X-RateLimit-Remaining")).toBe(0);
  const retryAfter = header(r, "Retry-After");
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
}
