// Every response carries an X-Request-Id: the caller's when it sent a sane one, otherwise a new one;
// at log level info every request ends in one line with that id.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLog } from "../../src/http/request-log.ts";
import { createLogger } from "../../src/logger.ts";
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

describe("request lines", () => {
  /** A bare app with only the request log, answering 204, on a logger writing into `lines`. */
  async function appAt(level: "info" | "warn") {
    const lines: string[] = [];
    const app = express();
    app.use(requestLog(createLogger(level, { write: (line) => lines.push(line) })));
    app.get("/", (_req, res) => {
      res.status(204).end();
    });
    // Answers after a while: a client may leave before it does.
    app.get("/slow", (_req, res) => {
      setTimeout(() => res.status(200).end(), 300);
    });
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return {
      lines,
      url,
      close: () =>
        new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        }),
    };
  }

  it("at info: one line per request, with the id the response carries", async () => {
    const app = await appAt("info");
    const response = await fetch(app.url, { headers: { "x-request-id": "line-1" } });
    expect(response.headers.get("x-request-id")).toBe("line-1");
    await app.close();
    expect(app.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ msg: "request", id: "line-1", method: "GET", path: "/", status: 204 }),
    ]);
  });

  it("holds exactly its fields: no query string, nothing of the headers", async () => {
    const app = await appAt("info");
    await fetch(`${app.url}?key=sk_secret_in_the_url`, {
      headers: { authorization: "Bearer sk_secret_in_the_header", "x-request-id": "line-2" },
    });
    await app.close();
    expect(app.lines).toHaveLength(1);
    const line = JSON.parse(app.lines[0] as string);
    expect(Object.keys(line).sort()).toEqual([
      "id",
      "level",
      "method",
      "ms",
      "msg",
      "path",
      "status",
      "time",
    ]);
    expect(line).toMatchObject({ level: "info", msg: "request", id: "line-2", path: "/", status: 204 });
    expect(line.ms).toBeGreaterThanOrEqual(0);
    expect(app.lines[0]).not.toContain("sk_secret");
  });

  it("is written once, marked aborted, when the client leaves before the answer", async () => {
    const app = await appAt("info");
    const leaving = new AbortController();
    const request = fetch(`${app.url}slow`, { signal: leaving.signal }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    leaving.abort();
    await request;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await app.close();
    expect(app.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ msg: "request", method: "GET", path: "/slow", aborted: true }),
    ]);
  });

  it("below info: no line, and still an id on every response", async () => {
    const app = await appAt("warn");
    const response = await fetch(app.url);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    await app.close();
    expect(app.lines).toEqual([]);
  });
});
