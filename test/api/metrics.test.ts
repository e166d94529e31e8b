// GET /metrics: Prometheus text for the operator (METRICS_TOKEN, else ADMIN_TOKEN), with request
// durations by route template and status, SQL statements per request, 429 refusals, GraphQL operation
// durations, response cache lookups and size, and the webhook backlog.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const TOKEN = "metrics-token-for-tests";
let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp({
    env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_UNAUTHENTICATED: "2", WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
  });
  ws = await app.workspace("Metrics");
});
afterAll(() => app?.close());

async function scrape(): Promise<string> {
  const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

/** The value of one series, e.g. `http_request_duration_seconds_count{method="GET",route="/v1/posts",status="200"}`. */
function value(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("GET /metrics", () => {
  it("answers only its token: 401 without or with a wrong one", async () => {
    expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${app.url}/metrics`, {
      headers: { authorization: `Bearer ${ws.privateKey}` },
    });
    expect(wrong.status).toBe(401);
  });

  it("does not exist when neither METRICS_TOKEN nor ADMIN_TOKEN is set", async () => {
    const bare = await startTestApp();
    try {
      expect((await fetch(`${bare.url}/metrics`)).status).toBe(404);
    } finally {
      await bare.close();
    }
  });

  it("counts requests by route template and status, with their SQL statements", async () => {
    const before = await scrape();
    const series =
      'http_request_duration_seconds_count{method="GET",route="/v1/posts/:identifier",status="404"}';
    await app.request("GET", "/v1/posts/no-such-post", { key: ws.publicKey });
    await app.request("GET", "/v1/posts/another-missing-one", { key: ws.publicKey });
    const after = await scrape();
    expect(value(after, series) - value(before, series)).toBe(2);
    // The ids are not labels: one series for the route.
    expect(after).not.toContain("no-such-post");
    const statements = 'http_request_sql_statements_sum{route="/v1/posts/:identifier"}';
    expect(value(after, statements)).toBeGreaterThan(value(before, statements));
  });

  it("counts 429 refusals", async () => {
    const series = 'http_rate_limited_total{route="/v1/posts"}';
    const before = value(await scrape(), series);
    for (let i = 0; i < 3; i++) await fetch(`${app.url}/v1/posts`);
    expect(value(await scrape(), series) - before).toBeGreaterThanOrEqual(1);
  });

  it("measures GraphQL operations by name and type, and the response caches' hits, misses and bytes", async () => {
    const query = async () =>
      fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: ws.publicKey, "content-type": "application/json" },
        body: JSON.stringify({ query: "query MetricsTags { tags { items { slug } } }" }),
      }).then((res) => res.json());
    await query();
    await query();
    await app.request("GET", "/v1/tags", { key: ws.publicKey });
    await app.request("GET", "/v1/tags", { key: ws.publicKey });
    const text = await scrape();
    expect(
      value(text, 'graphql_operation_duration_seconds_count{operation="MetricsTags",type="query"}'),
    ).toBe(1);
    expect(value(text, 'response_cache_lookups_total{door="graphql",result="hit"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(value(text, 'response_cache_lookups_total{door="graphql",result="miss"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(value(text, 'response_cache_lookups_total{door="rest",result="hit"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'response_cache_bytes{door="rest"}')).toBeGreaterThan(0);
    expect(value(text, 'response_cache_bytes{door="graphql"}')).toBeGreaterThan(0);
  });

  it("shows the webhook backlog: deliveries due and the oldest one's wait", async () => {
    // This app runs no dispatcher: a delivery made by a write stays due.
    const created = await app.request("POST", "/v1/webhooks", {
      key: ws.privateKey,
      body: { url: "http://127.0.0.1:9/hook", events: ["tag.created"] },
    });
    expect(created.status).toBe(201);
    await restFixtures(app, ws.privateKey).tag("backlog-tag");
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const text = await scrape();
    expect(value(text, "webhook_deliveries_due")).toBeGreaterThanOrEqual(1);
    expect(value(text, "webhook_delivery_lag_seconds")).toBeGreaterThanOrEqual(1);
  });
});
