// A subscriber that stops reading is dropped by the server itself, not buffered: its connection fills,
// the SSE stream stops pulling changes, its queue (SUBSCRIPTION_MAX_QUEUED) fills, and the subscription
// ends and its connection is closed (a stalled client holds no socket) — while a subscriber that reads
// keeps receiving everything.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { SUBSCRIPTION_MAX_QUEUED: "5" } });
});
afterAll(() => app?.close());

describe("a subscriber that does not read", () => {
  it("is ended once its connection and queue are full; a reading subscriber is not", async () => {
    const ws = await app.workspace("Slow subscriber");
    const { port } = new URL(app.url);
    // A raw connection that sends the subscription and then never reads a byte of the answer.
    const slow = connect(Number(port), "127.0.0.1");
    const body = JSON.stringify({ query: "subscription { contentChanged { type data } }" });
    slow.write(
      `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${ws.privateKey}\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    slow.pause();
    const closedByServer = new Promise<void>((resolve) => slow.once("close", () => resolve()));
    try {
      const reader = await subscribe(app.url, ws.privateKey, "subscription { contentChanged { type } }");
      await reader.waitFor(() => app.changes.subscriberCount === 2, 5_000);

      // Large events (a 200 KB post body, sent whole in each event) fill the slow connection quickly.
      const category = await restFixtures(app, ws.privateKey).category("big");
      const content = `<p>${"x".repeat(200_000)}</p>`;
      let writes = 0;
      while (app.changes.subscriberCount === 2 && writes < 200) {
        const res = await app.request("POST", "/v1/posts", {
          key: ws.privateKey,
          body: {
            title: `Big ${writes}`,
            slug: `big-${writes}`,
            content,
            description: "d",
            categoryId: category.id,
            status: "published",
          },
        });
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
        writes++;
      }
      expect(app.changes.subscriberCount).toBe(1);
      // The server closes the stalled connection after a grace. The client sees the close once it reads
      // again (a paused socket does not report its peer's FIN): it arrives at once, where a connection
      // left open would answer the rest of the stream and then sit in keep-alive for seconds.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const resumedAt = performance.now();
      slow.resume();
      await Promise.race([
        closedByServer,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error("the stalled connection was not closed by the server")), 1_500),
        ),
      ]);
      console.log(
        `stalled connection found closed ${Math.round(performance.now() - resumedAt)} ms after reading again`,
      );
      // Each post write makes post.created and post.published; the category's own event came first.
      await reader.waitFor((received) => received.length === 1 + 2 * writes, 10_000);
      reader.close();
      console.log(`slow subscriber ended after ${writes} writes of 200 KB posts`);
    } finally {
      slow.destroy();
    }
  }, 60_000);
});

describe("subscriptions and the rate limit", () => {
  it("count against the key's limit when they connect", async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_AUTHENTICATED: "2" } });
    try {
      const ws = await limited.workspace("Limited subscriber");
      const first = await subscribe(limited.url, ws.publicKey, "subscription { contentChanged { type } }");
      const second = await subscribe(limited.url, ws.publicKey, "subscription { contentChanged { type } }");
      const third = await fetch(`${limited.url}/graphql`, {
        method: "POST",
        headers: {
          authorization: ws.publicKey,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify({ query: "subscription { contentChanged { type } }" }),
      });
      expect(third.status).toBe(429);
      first.close();
      second.close();
    } finally {
      await limited.close();
    }
  });
});
