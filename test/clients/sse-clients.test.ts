// Issue #37: subscriptions through the SSE clients people use — the `eventsource` package (the browser's
// EventSource for Node) and `graphql-sse` (distinct connections mode, POST) — each subscription
// hearing the write made after it opened, one after another on the same keep-alive pool and several
// open at once. Item 7 asked which abort listener leaked: the server side of these streams adds none to
// any shared signal (the leak was the webhook dispatcher's, test/unit/webhook-abort-listeners.test.ts),
// so many subscriptions raise no MaxListenersExceededWarning and leave no subscriber behind.
import { EventSource } from "eventsource";
import { createClient } from "graphql-sse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeAll(async () => {
  process.on("warning", onWarning);
  app = await startTestApp();
  ws = await app.workspace("SSE clients");
});
afterAll(async () => {
  process.off("warning", onWarning);
  await app?.close();
});

const SUBSCRIPTION = "subscription { contentChanged { type slug } }";
/** More than Node's default of ten listeners per signal. */
const ROUNDS = 12;

const listenerWarnings = () =>
  warnings.filter((warning) => warning.name === "MaxListenersExceededWarning").map((w) => w.message);

/**
 * Waits until the app holds `count` subscriptions. Only for their end: a subscriber is counted before
 * it has read the log's head, so a write made then may precede its start; a client is subscribed once
 * the response has come (EventSource's open, graphql-sse's connected).
 */
async function subscribersReach(count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (app.changes.subscriberCount !== count) {
    if (Date.now() > deadline) throw new Error(`${app.changes.subscriberCount} subscribers, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function openEventSource(): { source: EventSource; opened: Promise<void>; next: Promise<string> } {
  const url = `${app.url}/graphql?query=${encodeURIComponent(SUBSCRIPTION)}&key=${ws.publicKey}`;
  const source = new EventSource(url);
  const failed = new Promise<never>((_, reject) =>
    source.addEventListener("error", (event) => reject(new Error(`EventSource error: ${event.message}`))),
  );
  failed.catch(() => {});
  const opened = Promise.race([
    new Promise<void>((resolve) => source.addEventListener("open", () => resolve())),
    failed,
  ]);
  const next = Promise.race([
    new Promise<string>((resolve) => source.addEventListener("next", (event) => resolve(event.data))),
    failed,
  ]);
  return { source, opened, next };
}

describe("SSE subscriptions through real clients", () => {
  it("eventsource: one subscription after another, each hearing its write", async () => {
    const fixtures = restFixtures(app, ws.privateKey);
    for (let round = 0; round < ROUNDS; round++) {
      const { source, opened, next } = openEventSource();
      await opened;
      await fixtures.tag(`es-${round}`);
      expect(JSON.parse(await next)).toEqual({
        data: { contentChanged: { type: "tag.created", slug: `es-${round}` } },
      });
      source.close();
      await subscribersReach(0);
    }
    expect(listenerWarnings()).toEqual([]);
  });

  it("eventsource: several open at once all hear the same write, and all end when closed", async () => {
    const sources = Array.from({ length: ROUNDS }, openEventSource);
    await Promise.all(sources.map(({ opened }) => opened));
    expect(app.changes.subscriberCount).toBe(ROUNDS);
    await restFixtures(app, ws.privateKey).tag("es-together");
    for (const data of await Promise.all(sources.map(({ next }) => next)))
      expect(JSON.parse(data).data.contentChanged.slug).toBe("es-together");
    for (const { source } of sources) source.close();
    await subscribersReach(0);
    expect(listenerWarnings()).toEqual([]);
  });

  it("graphql-sse: one subscription after another, each disposed (aborted) after its event", async () => {
    const client = createClient({ url: `${app.url}/graphql`, headers: { authorization: ws.publicKey } });
    const fixtures = restFixtures(app, ws.privateKey);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        let connected: () => void = () => {};
        const opened = new Promise<void>((resolve) => {
          connected = resolve;
        });
        let dispose: () => void = () => {};
        const first = new Promise<unknown>((resolve, reject) => {
          dispose = client.subscribe(
            { query: SUBSCRIPTION },
            { next: resolve, error: reject, complete: () => reject(new Error("completed without an event")) },
            { connected },
          );
        });
        await opened;
        await fixtures.tag(`sse-${round}`);
        expect(await first).toEqual({
          data: { contentChanged: { type: "tag.created", slug: `sse-${round}` } },
        });
        dispose();
        await subscribersReach(0);
      }
    } finally {
      client.dispose();
    }
    expect(listenerWarnings()).toEqual([]);
  });
});
