// Issue 54, item 9, its last doors: an import without PUBLIC_URL stores the files it names relative
// (`/media/<key>`, media-references.ts), and REST and GraphQL reads make them absolute. The events of
// that import carried them as stored: a webhook receiver, a reader of /v1/events or /v1/changes and a
// subscriber got `/media/…` (and media events the importing CLI's port 3000). Each must get the URL
// the server's reads give, on the server's own port. The real Ghost 2.9 export, its image host a test
// server on 127.0.0.1, imported as the CLI does (no PUBLIC_URL, PORT unset) into a server on another port.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.ts";
import { type SseSubscription, subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import { importGhostAsCli, referenceBases, STORED_FILE } from "./helpers/cli-port-import.ts";
import { type TestHost, testHost } from "./helpers/remote-hosts.ts";

describe("the events of an import without PUBLIC_URL, sent and read by a server on another port", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "media-urls-events-"));
  let app: TestApp;
  let host: TestHost;
  let receiver: WebhookReceiver;
  let live: SseSubscription;
  let ws: TestWorkspace;
  let port: number;
  let base: string;

  beforeAll(async () => {
    const image = await makeImage("png");
    host = await testHost((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(image));
    receiver = await startWebhookReceiver();
    port = await freePort();
    base = `http://localhost:${port}`;
    app = await startTestApp({
      port,
      ownMediaBase: true,
      background: true,
      env: { PORT: String(port), WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
    });
    ws = await app.workspace("events");
    const hook = await app.request("POST", "/v1/webhooks", {
      key: ws.privateKey,
      body: { url: receiver.url, events: ["*"] },
    });
    expect(hook.status).toBe(201);
    live = await subscribe(app.url, ws.privateKey, "subscription { contentChanged { type data } }");
    const summary = await importGhostAsCli(
      app,
      ws,
      { imageBase: host.url(""), scratch: folder },
      { webhooks: true },
    );
    expect(summary.failures).toEqual([]);
    expect(summary.byKind.media?.created).toBeGreaterThan(0);
  }, 60_000);
  afterAll(async () => {
    live?.close();
    await app?.close();
    await host?.close();
    await receiver?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The bases of every file reference in `json`, which must name some. */
  const referencesOf = (json: string) => {
    const bases = referenceBases(json);
    expect(bases.length).toBeGreaterThan(0);
    return bases;
  };

  it("sends webhook bodies whose media URLs are absolute on the server", async () => {
    // Every post, author and media item of the import is an event with its URLs: wait for the posts'.
    const posts = (await app.request("GET", "/v1/posts?limit=100", { key: ws.privateKey })).body
      .posts as unknown[];
    const received = await receiver.waitFor(
      (all) => all.filter((r) => r.json.type === "post.created").length === posts.length,
      20_000,
    );
    const bodies = received.map((r) => r.body).join("\n");
    expect(new Set(referencesOf(bodies))).toEqual(new Set([base]));
    // The media items' own events too.
    const media = received.filter((r) => r.json.type.startsWith("media."));
    expect(media.length).toBeGreaterThan(0);
    expect(media.map((r) => String(r.json.data.url).startsWith(`${base}/media/`))).toEqual(
      media.map(() => true),
    );
  });

  it("serves /v1/events, /v1/changes (HTML and markdown) and the subscription with absolute URLs", async () => {
    const events = await app.request("GET", "/v1/events?limit=100", { key: ws.privateKey });
    expect(events.status).toBe(200);
    expect(new Set(referencesOf(JSON.stringify(events.body)))).toEqual(new Set([base]));

    for (const format of ["html", "markdown"]) {
      const changes = await app.request("GET", `/v1/changes?limit=100&format=${format}`, {
        key: ws.publicKey,
      });
      expect(changes.status).toBe(200);
      expect(new Set(referencesOf(JSON.stringify(changes.body)))).toEqual(new Set([base]));
    }

    await live.waitFor((all) => all.some((r) => JSON.stringify(r).includes("/media/")), 10_000);
    expect(new Set(referencesOf(JSON.stringify(live.received)))).toEqual(new Set([base]));
  });

  it("names files that answer on the server", async () => {
    const events = await app.request("GET", "/v1/events?limit=100", { key: ws.privateKey });
    const urls = [...JSON.stringify(events.body).matchAll(STORED_FILE)].map((match) => match[0]);
    const answers = await Promise.all([...new Set(urls)].map(async (url) => (await fetch(url)).status));
    expect(answers.length).toBeGreaterThan(0);
    expect(answers).toEqual(answers.map(() => 200));
  });
});
