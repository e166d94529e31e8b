// Error messages name what the client sent (an identifier, a path, a field key), but only its first 100
// characters followed by "…": an answer never grows with the input, whichever door refuses it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notFoundBody } from "../helpers/expected-bodies.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const ADMIN_TOKEN = "admin-token-for-echo-tests";
/** As long as a request line allows (Node refuses headers beyond 16 KiB). */
const LONG_IN_URL = "a".repeat(8_000);
/** Under a third of the default body limit, so a body can hold it three times. */
const LONG_IN_BODY = "b".repeat(300_000);
const echoed = (value: string) => `${value.slice(0, 100)}…`;
/** Generous for any error body; the long inputs above are 8,000 and 300,000 characters. */
const MAX_ERROR_BODY = 1_000;

let app: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN } });
  ws = await app.workspace();
});
afterAll(async () => app?.close());

function expectShort(body: unknown): void {
  expect(JSON.stringify(body).length).toBeLessThan(MAX_ERROR_BODY);
}

describe("REST", () => {
  it("a 404 names the first 100 characters of the identifier", async () => {
    const res = await app.request("GET", `/v1/posts/${LONG_IN_URL}`, { key: ws.publicKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFoundBody("Post", echoed(LONG_IN_URL)));
  });

  it("a 405 names the first 100 characters of the path", async () => {
    const res = await app.request("PUT", `/v1/tags/${LONG_IN_URL}`, { key: ws.privateKey });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      error: "Method not allowed",
      message: `PUT is not allowed on ${echoed(`/v1/tags/${LONG_IN_URL}`)}`,
    });
  });

  it("an unknown route names the first 100 characters of the path", async () => {
    const res = await app.request("GET", `/nothing/${LONG_IN_URL}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Not found",
      message: `No route for GET ${echoed(`/nothing/${LONG_IN_URL}`)}`,
    });
  });

  it("an unknown workspace in the path form is cut short", async () => {
    const res = await app.request("GET", `/v1/${LONG_IN_URL}/posts`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Workspace not found",
      message: `Workspace "${echoed(LONG_IN_URL)}" does not exist`,
    });
  });

  it("missing references and unknown custom fields in a body are cut short", async () => {
    const res = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: {
        title: "T",
        slug: "t",
        content: "<p>c</p>",
        description: "d",
        status: "draft",
        categoryId: LONG_IN_BODY,
        tags: [LONG_IN_BODY],
        fields: { [LONG_IN_BODY]: 1 },
      },
    });
    expect(res.status).toBe(400);
    expectShort(res.body);
    const messages = res.body.details.map((d: { message: string }) => d.message).join(" ");
    expect(messages).toMatch(/Unknown custom field|does not exist/);
    expect(messages).toContain(`"${echoed(LONG_IN_BODY)}"`);
  });
});

describe("admin API", () => {
  it("an unknown workspace or key is cut short", async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const workspace = await app.request("GET", `/admin/workspaces/${LONG_IN_URL}/keys`, { headers });
    expect(workspace.status).toBe(404);
    expect(workspace.body.message).toBe(`No workspace with id or slug "${echoed(LONG_IN_URL)}"`);
    const key = await app.request("POST", `/admin/keys/${LONG_IN_URL}/revoke`, { headers });
    expect(key.status).toBe(404);
    expect(key.body.message).toBe(`API key "${echoed(LONG_IN_URL)}" does not exist in this workspace`);
  });
});

describe("GraphQL over HTTP", () => {
  async function graphql(query: string, variables: Record<string, unknown>) {
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.publicKey, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: await response.json() };
  }

  it("NOT_FOUND names the first 100 characters of the identifier", async () => {
    const res = await graphql("query($id: String!) { post(identifier: $id) { id } }", { id: LONG_IN_BODY });
    expect(res.status).toBe(404);
    expect(res.body.errors[0].message).toBe(
      `Post "${echoed(LONG_IN_BODY)}" does not exist in this workspace`,
    );
    expectShort(res.body);
  });

  it("a variable graphql-js cannot coerce is not quoted back whole", async () => {
    const res = await graphql("query($limit: Int) { posts(limit: $limit) { items { id } } }", {
      limit: LONG_IN_BODY,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      details: [{ field: "limit" }],
    });
    expect(res.body.errors[0].message).toMatch(/^Variable "\$limit" got invalid value "bbbb.*…/);
    expectShort(res.body);
  });
});
