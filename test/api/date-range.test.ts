// Dates a post can be given: any ISO 8601 date-time between the years 1 and 9999 (UTC), the range the
// database stores. Year 0, a date that an offset moves out of the range, and days missing from the
// calendar are the client's mistake (400 / BAD_USER_INPUT), on REST and GraphQL alike; the boundaries
// themselves are stored and read back exactly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const RANGE_PROBLEM = "Must be a date-time between the years 1 and 9999 (UTC)";
const OUT_OF_RANGE = [
  "0000-01-01T00:00:00Z",
  "0000-12-31T23:59:59.999Z",
  // AD 1 in Paris is still year 0 in UTC.
  "0001-01-01T00:00:00+01:00",
  // 31 December 9999 in New York is year 10000 in UTC.
  "9999-12-31T23:00:00-05:00",
];
const BOUNDARIES = [
  ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
  ["0001-01-01T00:30:00-01:00", "0001-01-01T01:30:00.000Z"],
  ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
] as const;

let app: TestApp;
let ws: TestWorkspace;
let categoryId: string;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace();
  categoryId = (await restFixtures(app, ws.privateKey).category("news")).id;
});
afterAll(async () => app?.close());

let counter = 0;
const newPost = (publishedAt: string) => ({
  title: "T",
  slug: `post-${++counter}`,
  content: "<p>c</p>",
  description: "d",
  categoryId,
  status: "published",
  publishedAt,
});

describe("REST", () => {
  it.each(OUT_OF_RANGE)("POST /v1/posts with publishedAt %s is a 400", async (publishedAt) => {
    const res = await app.request("POST", "/v1/posts", { key: ws.privateKey, body: newPost(publishedAt) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [{ field: "publishedAt", message: RANGE_PROBLEM }],
    });
  });

  it.each(OUT_OF_RANGE)("PATCH /v1/posts/{identifier} with publishedAt %s is a 400", async (publishedAt) => {
    const created = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: newPost(BOUNDARIES[0][0]),
    });
    const res = await app.request("PATCH", `/v1/posts/${created.body.post.id}`, {
      key: ws.privateKey,
      body: { publishedAt },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: "publishedAt", message: RANGE_PROBLEM }]);
  });

  it.each(BOUNDARIES)("publishedAt %s is stored and read back as %s", async (publishedAt, stored) => {
    const res = await app.request("POST", "/v1/posts", { key: ws.privateKey, body: newPost(publishedAt) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.post.publishedAt).toBe(stored);
    // A date ahead makes the post scheduled (public from then on): read it back with the private key.
    const read = await app.request("GET", `/v1/posts/${res.body.post.slug}?status=all`, {
      key: ws.privateKey,
    });
    expect(read.body.post.publishedAt).toBe(stored);
  });
});

describe("GraphQL", () => {
  const CREATE = "mutation($input: CreatePostInput!) { createPost(input: $input) { id publishedAt } }";
  const input = (publishedAt: string) => {
    const { status: _status, ...rest } = newPost(publishedAt);
    return { ...rest, status: "PUBLISHED" };
  };

  it.each([
    ...OUT_OF_RANGE.map((value) => [value, RANGE_PROBLEM]),
    ["2024-02-30T00:00:00Z", "Expected an ISO 8601 date-time string"],
    ["2023-02-29T12:00:00Z", "Expected an ISO 8601 date-time string"],
  ])("a DateTime variable %s is BAD_USER_INPUT", async (publishedAt, problem) => {
    const result = await app.graphql(ws.privateKey, CREATE, { input: input(publishedAt) });
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", http: { status: 400 } });
    expect(result.errors?.[0]?.message).toMatch(/at "input\.publishedAt"/);
    expect(result.errors?.[0]?.message).toContain(problem);
  });

  it("a DateTime literal out of range is BAD_USER_INPUT (400) over HTTP", async () => {
    const query = `mutation { createPost(input: { title: "T", slug: "literal", content: "c", description: "d",
      categoryId: "${categoryId}", status: PUBLISHED, publishedAt: "0000-01-01T00:00:00Z" }) { id } }`;
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.privateKey, "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0].message).toMatch(/years 1 and 9999/);
    expect(body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });

  it.each(BOUNDARIES)("a DateTime of %s is stored as %s", async (publishedAt, stored) => {
    const result = await app.graphql(ws.privateKey, CREATE, { input: input(publishedAt) });
    expect(result.errors).toBeUndefined();
    expect(result.data.createPost.publishedAt).toBe(stored);
  });
});
