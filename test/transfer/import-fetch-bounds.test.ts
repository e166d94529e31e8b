// Every fetch of an import has a connect deadline (name lookup included), a deadline for the whole
// fetch and a byte cap counted while the body arrives: a media URL that never answers, drips a byte at
// a time or streams without end costs the import at most the deadline and the cap (MEDIA_MAX_BYTES),
// the connection is dropped, and the import goes on with its next record.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import {
  drips,
  importCovers,
  mediaFailures,
  neverAnswers,
  routedTo,
  streamsWithoutEnd,
  testHost,
} from "./helpers/remote-hosts.ts";

const CAP = 1024 * 1024;
const FAILED = "<url> could not be fetched (no usable answer within 2 s and 1 MiB)";
/** Time enough for the import's own work on a busy machine, and far below "forever". */
const PROMPTLY_MS = 15_000;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      IMPORT_FETCH_CONNECT_TIMEOUT_MS: "1000",
      IMPORT_FETCH_TIMEOUT_MS: "2000",
      MEDIA_MAX_BYTES: String(CAP),
    },
  });
}, 120_000);
afterAll(() => app?.close());

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

describe("an import's media fetch is bounded", () => {
  it.each([
    ["never answers", neverAnswers],
    ["drips a byte every 100 ms", drips],
    ["streams without end", streamsWithoutEnd],
  ])(
    "a target that %s: the record fails at the deadline or the cap, the connection is dropped",
    async (_name, handler) => {
      const host = await testHost(handler);
      try {
        const ws = await app.workspace();
        const url = host.url("/cover.png");
        const [summary, took] = await timed(() => importCovers(app, ws, [url]));
        expect(mediaFailures(summary, [url])).toEqual([FAILED]);
        expect(summary.byKind.post).toMatchObject({ created: 1, failed: 0 });
        expect(took).toBeLessThan(PROMPTLY_MS);
        await expect.poll(() => host.open, { timeout: 5_000 }).toBe(0);
        // What was sent before the drop: the cap, plus what the sockets' buffers held.
        expect(host.bytesSent).toBeLessThan(CAP + 16 * 1024 * 1024);
      } finally {
        await host.close();
      }
    },
    60_000,
  );

  it("a name that never resolves fails at the connect deadline, long before the total one", async () => {
    const host = await testHost(neverAnswers);
    try {
      const ws = await app.workspace();
      const url = "http://slow-dns.test/cover.png";
      const config: Config = {
        ...app.config,
        imports: { ...app.config.imports, fetch: { ...app.config.imports.fetch, timeoutMs: 120_000 } },
      };
      const [summary, took] = await timed(() =>
        importCovers(app, ws, [url], {
          config,
          network: { resolve: () => new Promise(() => {}), connect: routedTo(host) },
        }),
      );
      expect(mediaFailures(summary, [url])).toEqual([
        "<url> could not be fetched (no usable answer within 120 s and 1 MiB)",
      ]);
      expect(took).toBeLessThan(PROMPTLY_MS);
      expect(host.connections).toBe(0);
    } finally {
      await host.close();
    }
  }, 60_000);

  it("an abandoned import stops its fetch at once", async () => {
    const host = await testHost(neverAnswers);
    try {
      const ws = await app.workspace();
      const config: Config = {
        ...app.config,
        imports: { ...app.config.imports, fetch: { ...app.config.imports.fetch, timeoutMs: 120_000 } },
      };
      const abandon = new AbortController();
      const started = performance.now();
      const run = importCovers(app, ws, [host.url("/cover.png")], { config, signal: abandon.signal });
      await expect.poll(() => host.requests.length, { timeout: 20_000 }).toBe(1);
      abandon.abort(new Error("the CLI went away"));
      await expect(run).rejects.toThrow("the CLI went away");
      expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
      await expect.poll(() => host.open, { timeout: 5_000 }).toBe(0);
    } finally {
      await host.close();
    }
  }, 60_000);
});
