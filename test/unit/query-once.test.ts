// The query string is parsed once per request, however often the pipeline reads `req.query`, and reads
// the same values Express's own parser gives.
import type { AddressInfo } from "node:net";
import { parse } from "node:querystring";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { parseQueryOnce } from "../../src/http/query-once.ts";

let close: (() => void) | undefined;
afterEach(() => close?.());

async function serve(app: express.Express): Promise<string> {
  const server = app.listen(0);
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function countingApp(withOnce: boolean) {
  const app = express();
  let parses = 0;
  app.set("query parser", (text: string) => {
    parses++;
    return parse(text);
  });
  if (withOnce) app.use(parseQueryOnce());
  app.get("/read", (req, res) => {
    const reads = [req.query, req.query, req.query];
    res.json({ same: reads.every((q) => q === reads[0]), query: req.query, parses });
  });
  return { app, parses: () => parses };
}

describe("the query string, parsed once", () => {
  it("is parsed once per request however often it is read", async () => {
    const { app } = countingApp(true);
    const base = await serve(app);
    const answer = await fetch(`${base}/read?limit=10&tags=a,b&tags=c`).then((r) => r.json());
    expect(answer).toEqual({
      same: true,
      query: { limit: "10", tags: ["a,b", "c"] },
      parses: 1,
    });
  });

  it("without it, Express parses it again on every read", async () => {
    const { app } = countingApp(false);
    const base = await serve(app);
    const answer = await fetch(`${base}/read?limit=10`).then((r) => r.json());
    expect(answer.same).toBe(false);
    expect(answer.parses).toBeGreaterThanOrEqual(3);
  });

  it("keeps what a later handler writes to req.query", async () => {
    const app = express();
    app.use(parseQueryOnce());
    app.use((req, _res, next) => {
      req.query = { replaced: "yes" };
      next();
    });
    app.get("/read", (req, res) => res.json(req.query));
    const base = await serve(app);
    expect(await fetch(`${base}/read?limit=10`).then((r) => r.json())).toEqual({ replaced: "yes" });
  });
});
