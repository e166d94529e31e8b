// A browser's EventSource cannot send an Authorization header: the SSE form of a subscription (GET
// /graphql, accept: text/event-stream) takes a public key as `?key=`. Never a private key (a URL ends up
// in logs and history), and no other request reads a key from the URL. In a real browser:
// test/browser/explorer-pages.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("EventSource");
});
afterAll(() => app?.close());

const SUBSCRIPTION = "subscription { contentChanged { type slug } }";
const sseUrl = (key: string) => `${app.url}/graphql?query=${encodeURIComponent(SUBSCRIPTION)}&key=${key}`;

describe("a public key in the query string of an EventSource subscription", () => {
  it("subscribes: the stream delivers the workspace's published changes", async () => {
    const controller = new AbortController();
    const res = await fetch(sseUrl(ws.publicKey), {
      headers: { accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await restFixtures(app, ws.privateKey).tag("heard-by-event-source");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("heard-by-event-source")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    expect(text).toContain(
      'event: next\ndata: {"data":{"contentChanged":{"type":"tag.created","slug":"heard-by-event-source"}}}',
    );
  });

  it("refuses a private key in the URL with 400, before it is looked up", async () => {
    const res = await fetch(sseUrl(ws.privateKey), { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors[0].extensions).toEqual({ code: "BAD_REQUEST" });
    expect(body.errors[0].message).toMatch(/^Only a public key \(pk_…\) may be sent in a URL/);
  });

  it("reads a URL key for nothing but the EventSource form", async () => {
    const query = encodeURIComponent("{ tags { items { slug } } }");
    const res = await fetch(`${app.url}/graphql?query=${query}&key=${ws.publicKey}`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].message).toMatch(/only read for a subscription over EventSource/);
  });

  it("answers an unknown public key as any unknown key: 401", async () => {
    const res = await fetch(sseUrl("pk_notAKeyOfAnyWorkspace0000000000"), {
      headers: { accept: "text/event-stream" },
    });
    expect(res.status).toBe(401);
  });
});
