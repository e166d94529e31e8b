// /graphql as an HTTP endpoint: GraphQL over HTTP's media types and statuses, the service's body limit,
// and a GraphQL error body (never an empty one) for every request it cannot take.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp({ env: { BODY_LIMIT_BYTES: "100000" } });
  ws = await app.workspace("Transport");
});
afterAll(async () => app?.close());

async function send(body: BodyInit | null, headers: Record<string, string>) {
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { authorization: ws.publicKey, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type"), body: JSON.parse(text) };
}
const json = (value: unknown) => JSON.stringify(value);

describe("GraphQL over HTTP: the answer's media type and status", () => {
  const invalid = json({ query: "{ noSuchField }" });

  it.each([
    ["no Accept header", undefined],
    ["*/*", "*/*"],
    ["the new type alone", "application/graphql-response+json"],
    ["both, the new type first", "application/graphql-response+json, application/json"],
    ["both, the legacy type first", "application/json, application/graphql-response+json"],
    ["the new type with the higher weight", "application/json;q=0.5, application/graphql-response+json"],
  ])(
    "%s: application/graphql-response+json, and 400 for a document that does not validate",
    async (_l, accept) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (accept) headers.accept = accept;
      // fetch sends */* when no Accept is given; a raw request without the header is tested in http-errors.
      const res = await send(invalid, headers);
      expect(res.status).toBe(400);
      expect(res.type).toBe("application/graphql-response+json; charset=utf-8");
      expect(res.body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    },
  );

  it("clients that accept only application/json keep the legacy 200 with errors", async () => {
    for (const accept of ["application/json", "application/json, application/graphql-response+json;q=0.5"]) {
      const res = await send(invalid, { "content-type": "application/json", accept });
      expect(res.status).toBe(200);
      expect(res.type).toBe("application/json; charset=utf-8");
      expect(res.body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    }
  });

  it("a variable that cannot be coerced is a request error: 400 with the new type, 200 for application/json only", async () => {
    const body = json({
      query: "query Q($s: String!) { post(identifier: $s) { id } }",
      variables: { s: null },
    });
    for (const [accept, status, type] of [
      ["application/graphql-response+json", 400, "application/graphql-response+json; charset=utf-8"],
      ["application/json", 200, "application/json; charset=utf-8"],
    ] as const) {
      const res = await send(body, { "content-type": "application/json", accept });
      expect(res.status, accept).toBe(status);
      expect(res.type).toBe(type);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    }
  });

  it("a successful operation is 200 either way", async () => {
    const res = await send(json({ query: "{ tags { items { name } } }" }), {
      "content-type": "application/json",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { tags: { items: [] } } });
  });
});

describe("request bodies", () => {
  it("holds JSON bodies to BODY_LIMIT_BYTES: 413 PAYLOAD_TOO_LARGE as a GraphQL error", async () => {
    const body = json({ query: "{ tags { items { name } } }", variables: { pad: "x".repeat(150_000) } });
    const res = await send(body, { "content-type": "application/json" });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      errors: [
        { message: "The request body exceeds the size limit", extensions: { code: "PAYLOAD_TOO_LARGE" } },
      ],
    });
  });

  it("holds bodies without a Content-Length (chunked) to the same limit", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(50_000));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.publicKey, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await response.json()).errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it.each([
    ["text/plain", "text/plain"],
    ["application/xml", "application/xml; charset=utf-8"],
  ])("answers an unsupported content type (%s) with 415 and a GraphQL error body", async (type, header) => {
    const res = await send("{ tags { items { name } } }", { "content-type": header });
    expect(res.status).toBe(415);
    expect(res.type).toContain("application/json");
    expect(res.body.errors[0].extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(res.body.errors[0].message).toContain(`got "${type}"`);
  });

  it("still takes the other types GraphQL over HTTP allows", async () => {
    const graphql = await send("{ tags { items { name } } }", { "content-type": "application/graphql" });
    expect(graphql.body).toEqual({ data: { tags: { items: [] } } });
    const form = await send(new URLSearchParams({ query: "{ tags { items { name } } }" }), {});
    expect(form.body).toEqual({ data: { tags: { items: [] } } });
  });

  it("refuses a multipart request with more parts than an upload has, without a 500", async () => {
    const form = new FormData();
    form.append("operations", json({ query: "{ tags { items { name } } }" }));
    form.append("map", json({}));
    for (let i = 0; i < 5; i++) form.append(`extra${i}`, "x");
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.privateKey },
      body: form,
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect((await response.json()).errors[0].message).toEqual(expect.any(String));
  });
});
