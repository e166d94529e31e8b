// What Node's HTTP parser refuses before the app sees it still gets the service's JSON error body.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace();
});
afterAll(async () => app?.close());

describe("requests the HTTP parser refuses", () => {
  it("a URL over 16 KiB: 431 with a JSON body saying what to do", async () => {
    const res = await app.request("GET", `/v1/posts?tags=${"a".repeat(20_000)}`, { key: ws.publicKey });
    expect(res.status).toBe(431);
    expect(res.body).toEqual({
      error: "Request header fields too large",
      message: "The URL or the headers exceed 16 KiB; send long filters in fewer, shorter parameters",
    });
  });

  it("a request line that is not HTTP: 400 with a JSON body", async () => {
    const { port } = new URL(app.url);
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
      socket.on("data", (chunk) => (text += chunk));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1] ?? "")).toEqual({
      error: "Bad request",
      message: "The request could not be parsed as HTTP",
    });
  });
});

describe("JSON nested past 64 levels", () => {
  const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
  const query = "query Q($t: [String!]) { posts(tags: $t) { items { id } } }";
  const deepMessage = (where: string) => `${where} nests arrays or objects deeper than 64 levels`;

  it("GraphQL variables 50,000 `[` deep: 400 BAD_REQUEST on every way in, never a 500", async () => {
    const body = `{"query": ${JSON.stringify(query)}, "variables": {"t": ${deep(50_000)}}}`;
    // The cached-read door reads a regular GraphQL answer's body itself; others go to the pipeline.
    for (const accept of ["application/graphql-response+json", "application/json", "text/event-stream"]) {
      const res = await fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: ws.publicKey, "content-type": "application/json", accept },
        body,
      });
      expect(res.status, accept).toBe(400);
      expect((await res.json()).errors).toEqual([
        { message: deepMessage("The request body"), extensions: { code: "BAD_REQUEST" } },
      ]);
    }
    const form = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.publicKey, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ query, variables: `{"t": ${deep(50_000)}}` }).toString(),
    });
    expect(form.status).toBe(400);
    expect((await form.json()).errors[0].message).toBe(deepMessage("The `variables` parameter"));
    // A GET's URL holds at most 16 KiB: a few thousand levels.
    const get = await fetch(
      `${app.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(`{"t": ${deep(2_000)}}`)}`,
      { headers: { authorization: ws.publicKey, accept: "application/json" } },
    );
    expect(get.status).toBe(400);
    expect((await get.json()).errors[0].message).toBe(deepMessage("The `variables` parameter"));
  });

  it("brackets inside strings do not count, and an ordinary request still runs", async () => {
    const res = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.publicKey, "content-type": "application/json" },
      body: JSON.stringify({ query, variables: { t: [`${"[".repeat(200)}\\"`] } }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.posts.items).toEqual([]);
  });

  it("REST bodies: 400 with the contract's validation body", async () => {
    const res = await app.request("POST", "/v1/tags", {
      key: ws.privateKey,
      body: `{"name": "Deep", "slug": "deep", "description": ${deep(50_000)}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [{ field: "body", message: deepMessage("The request body") }],
    });
  });
});
