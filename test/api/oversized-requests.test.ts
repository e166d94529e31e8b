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
