// Every response carries an X-Request-Id: the caller's when it sent a sane one, otherwise a new one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

describe("X-Request-Id", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app.close());

  it("is a new UUID when the request has none, on successes and errors alike", async () => {
    const ok = await app.request("GET", "/status");
    const unauthorized = await app.request("GET", "/v1/posts");
    for (const res of [ok, unauthorized]) {
      expect(res.headers.get("x-request-id")).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
    expect(ok.headers.get("x-request-id")).not.toBe(unauthorized.headers.get("x-request-id"));
  });

  it("echoes the caller's id when it is sane, and replaces one that is not", async () => {
    const echoed = await app.request("GET", "/status", { headers: { "x-request-id": "edge-42.abc_DEF" } });
    expect(echoed.headers.get("x-request-id")).toBe("edge-42.abc_DEF");
    const replaced = await app.request("GET", "/status", { headers: { "x-request-id": "<script>" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("<script>");
  });
});
