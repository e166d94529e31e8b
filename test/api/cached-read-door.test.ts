// Cache hits of keyed `GET /v1/…` reads are answered before Express routes them (the cached-read door,
// src/http/cached-read-door.ts). A hit must be the same answer the full pipeline gives: same status,
// headers and bytes (only the cache status, the request id, the date and the rate limit's running
// count differ), for every representation (identity, gzip, brotli, 304); and everything the pipeline
// enforces per request still holds on the short way: a revoked key, another workspace's key, the rate
// limit (counted once per request), the request metrics under the route's template.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const ADMIN_TOKEN = "admin-token-for-door-tests";
const METRICS_TOKEN = "metrics-token-for-door-tests";

let app: TestApp;
let ws: TestWorkspace;
/** Every SQL statement the app ran. */
const statements: string[] = [];
/** Requests that reached Express's router. */
let routed = 0;
interface RouterHandle {
  handle(req: unknown, res: unknown, done: unknown): unknown;
}
beforeAll(async () => {
  app = await startTestApp({
    env: { ADMIN_TOKEN, METRICS_TOKEN, RATE_LIMIT_AUTHENTICATED: "40", RATE_LIMIT_WINDOW_MS: "60000" },
    onQuery: (sql) => statements.push(sql),
  });
  ws = await app.workspace("Door");
  const f = restFixtures(app, ws.privateKey);
  const category = await f.category("door-news");
  for (let n = 1; n <= 3; n++)
    await f.post({
      slug: `door-post-${n}`,
      categoryId: category.id,
      content: `<p>A long body.</p>`.repeat(200),
    });
  // Counts the requests that reach Express's router: a hit answered by the door never does.
  const router = (app.express as unknown as { router: RouterHandle }).router;
  const handle = router.handle.bind(router);
  router.handle = (req, res, done) => {
    routed++;
    return handle(req, res, done);
  };
});
afterAll(() => app?.close());

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request with exactly these headers (fetch would add its own, and decompress). */
function get(path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return send("GET", path, headers);
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${app.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

const VARYING = new Set(["x-cache", "x-request-id", "date", "x-ratelimit-remaining", "x-ratelimit-reset"]);
function comparable(headers: IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => !VARYING.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** The pipeline's answer (a miss), then the door's (a hit), for the same request. */
async function missThenHit(path: string, headers: Record<string, string>, method = "GET", body?: string) {
  const miss = await send(method, path, headers, body);
  const before = routed;
  const hit = await send(method, path, headers, body);
  return { miss, hit, routedOnHit: routed - before };
}

describe("a cache hit answered before routing is the pipeline's answer", () => {
  const cases: [string, string, (ws: TestWorkspace) => Record<string, string>][] = [
    ["a list, identity", "/v1/posts?limit=2", (w) => ({ authorization: `Bearer ${w.publicKey}` })],
    ["a list, gzip", "/v1/posts?limit=3", (w) => ({ authorization: w.publicKey, "accept-encoding": "gzip" })],
    [
      "a single post, brotli preferred",
      "/v1/posts/door-post-1",
      (w) => ({ authorization: w.publicKey, "accept-encoding": "gzip, deflate, br" }),
    ],
    ["a private key's read", "/v1/posts?limit=1&status=all", (w) => ({ authorization: w.privateKey })],
    ["the workspace path form with a key", "/v1/WS/categories", (w) => ({ authorization: w.publicKey })],
  ];
  for (const [name, template, headersOf] of cases) {
    it(name, async () => {
      const path = template.replace("WS", ws.id);
      const { miss, hit, routedOnHit } = await missThenHit(path, headersOf(ws));
      expect(miss.status, miss.body.toString()).toBe(200);
      expect(miss.headers["x-cache"]).toBe("MISS");
      expect(hit.headers["x-cache"]).toBe("HIT");
      expect(routedOnHit).toBe(0);
      expect(hit.status).toBe(200);
      expect(comparable(hit.headers)).toEqual(comparable(miss.headers));
      expect(hit.body.equals(miss.body)).toBe(true);
      expect(hit.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(hit.headers["x-ratelimit-remaining"])).toBe(
        Number(miss.headers["x-ratelimit-remaining"]) - 1,
      );
    });
  }

  it("a client holding the answer gets the same 304 either way", async () => {
    const path = "/v1/posts/door-post-2";
    const headers = { authorization: ws.publicKey, "accept-encoding": "br" };
    const first = await get(path, headers);
    const held = { ...headers, "if-none-match": String(first.headers.etag), "cache-control": "no-cache" };
    // The first conditional request is served from the cache, like the second: both are hits; the
    // pipeline's 304 is had from a fresh URL (a miss that finds the client holding the answer).
    const { hit } = await missThenHit(path, held);
    expect(hit.status).toBe(304);
    expect(hit.body.length).toBe(0);
    // A list of categories: it counts public posts, so any public post's edit may change it (and this
    // one leaves its bytes as they were).
    const freshPath = "/v1/categories";
    const freshFirst = await get(freshPath, headers);
    const freshHeld = { ...held, "if-none-match": String(freshFirst.headers.etag) };
    const pipeline304 = await new Promise<RawAnswer>((resolve) => {
      // A write that could change the answer: the next conditional read is computed by the pipeline, and still 304.
      void app
        .request("PATCH", "/v1/posts/door-post-3", { key: ws.privateKey, body: { title: "Moved on" } })
        .then(() => get(freshPath, freshHeld))
        .then(resolve);
    });
    expect(pipeline304.status).toBe(304);
    expect(pipeline304.headers["x-cache"]).toBe("MISS");
    const door304 = await get(freshPath, freshHeld);
    expect(door304.headers["x-cache"]).toBe("HIT");
    expect(comparable(door304.headers)).toEqual(comparable(pipeline304.headers));
  });
});

describe("a GraphQL POST hit answered before routing is the pipeline's answer", () => {
  const query = "query List($limit: Int) { posts(limit: $limit) { items { title slug } } }";
  const cases: [string, Record<string, string>, unknown][] = [
    ["no Accept header", {}, { query, variables: { limit: 2 } }],
    ["Accept: application/json", { accept: "application/json" }, { query, variables: { limit: 3 } }],
    [
      "graphql-request's Accept, an operation name",
      { accept: "application/graphql-response+json, application/json" },
      { query, operationName: "List", variables: { limit: 1 } },
    ],
  ];
  for (const [name, extra, body] of cases) {
    it(name, async () => {
      const headers = { authorization: ws.publicKey, "content-type": "application/json", ...extra };
      const { miss, hit, routedOnHit } = await missThenHit("/graphql", headers, "POST", JSON.stringify(body));
      expect(miss.status, miss.body.toString()).toBe(200);
      expect(miss.headers["x-cache"]).toBe("MISS");
      expect(hit.headers["x-cache"]).toBe("HIT");
      expect(routedOnHit).toBe(0);
      expect(comparable(hit.headers)).toEqual(comparable(miss.headers));
      expect(hit.body.equals(miss.body)).toBe(true);
      expect(JSON.parse(hit.body.toString()).data.posts.items.length).toBeGreaterThan(0);
    });
  }

  it("a body the door reads but cannot parse gets the pipeline's own refusal", async () => {
    const headers = { authorization: ws.publicKey, "content-type": "application/json" };
    for (const body of ["{not json", '"a string"']) {
      const refused = await send("POST", "/graphql", headers, body);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body.toString()).errors[0].message).toBe(
        "The request body is not valid JSON",
      );
    }
  });

  it("a read after a write is computed afresh, and mutations are never answered from the cache", async () => {
    const headers = { authorization: ws.privateKey, "content-type": "application/json" };
    const read = JSON.stringify({ query: '{ post(identifier: "door-post-1") { title } }' });
    await send("POST", "/graphql", headers, read);
    expect((await send("POST", "/graphql", headers, read)).headers["x-cache"]).toBe("HIT");
    const rename = JSON.stringify({
      query: `mutation { updatePost(identifier: "door-post-1", input: { title: "Renamed at the door" }) { title } }`,
    });
    for (let n = 0; n < 2; n++) {
      const written = await send("POST", "/graphql", headers, rename);
      expect(written.headers["x-cache"]).toBeUndefined();
    }
    const after = await send("POST", "/graphql", headers, read);
    expect(after.headers["x-cache"]).toBe("MISS");
    expect(JSON.parse(after.body.toString()).data.post.title).toBe("Renamed at the door");
  });
});

describe("what the short way costs a request it does not answer", () => {
  const headReads = () => statements.filter((sql) => sql.includes("max(position)")).length;

  it("a route that is never cached reads no change log head", async () => {
    const before = headReads();
    for (let n = 0; n < 3; n++) {
      const answer = await get("/v1/webhooks", { authorization: ws.privateKey });
      expect(answer.status).toBe(200);
      expect(answer.headers["x-cache"]).toBeUndefined();
    }
    expect(headReads()).toBe(before);
  });

  it("a URL asked for the first time reads the head once (the pipeline's, to store the answer)", async () => {
    const before = headReads();
    const first = await get("/v1/posts?limit=4&order=asc", { authorization: ws.publicKey });
    expect(first.headers["x-cache"]).toBe("MISS");
    expect(headReads()).toBe(before + 1);
  });
});

describe("what the pipeline enforces holds on the short way", () => {
  it("a revoked key is refused at once, though its answer is cached", async () => {
    const key = await app.request("POST", `/admin/workspaces/${ws.id}/keys`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { kind: "public", name: "soon revoked" },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const headers = { authorization: key.body.key as string };
    await get("/v1/posts?limit=2", headers);
    expect((await get("/v1/posts?limit=2", headers)).headers["x-cache"]).toBe("HIT");
    const revoked = await app.request("POST", `/admin/keys/${key.body.apiKey.id}/revoke`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBe(200);
    const refused = await get("/v1/posts?limit=2", headers);
    expect(refused.status).toBe(401);
  });

  it("another workspace's key gets no answer stored for this workspace's path", async () => {
    const other = await app.workspace("Other door");
    const path = `/v1/${ws.id}/categories`;
    await get(path, { authorization: ws.publicKey });
    const refused = await get(path, { authorization: other.publicKey });
    expect(refused.status).toBe(403);
  });

  it("hits draw on the key's rate limit, once each, and the one over it gets the contract's 429", async () => {
    const limited = await app.workspace("Limited door");
    const headers = { authorization: limited.publicKey };
    const seen: number[] = [];
    let last: RawAnswer | undefined;
    for (let n = 0; n < 41; n++) {
      last = await get("/v1/posts?limit=1", headers);
      if (last.status === 200) seen.push(Number(last.headers["x-ratelimit-remaining"]));
    }
    expect(seen).toEqual(Array.from({ length: 40 }, (_, n) => 39 - n));
    expect(last?.status).toBe(429);
    expect(last?.headers["retry-after"]).toMatch(/^\d+$/);
    expect(JSON.parse(String(last?.body))).toMatchObject({
      error: "Too many requests",
      details: { statusCode: 429 },
    });
  });

  it("hits are measured under the route's template, not the raw URL", async () => {
    await get("/v1/posts/door-post-1", { authorization: ws.publicKey });
    const metrics = await fetch(`${app.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    }).then((res) => res.text());
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/posts\/:identifier",status="200"\} ([2-9]|[1-9]\d+)\n/,
    );
    expect(metrics).not.toContain("door-post-1");
    expect(metrics).toMatch(/response_cache_lookups_total\{door="rest",result="hit"\} [1-9]/);
  });
});
