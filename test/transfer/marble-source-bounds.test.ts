// A /v1 source (`import URL --from marble`) is read within bounds: each request has a deadline and a
// page-size cap (IMPORT_SOURCE_MAX_PAGE_BYTES), a list is read for at most IMPORT_SOURCE_MAX_PAGES
// pages, an empty page ends it and a page seen before stops the import. The source is a server on
// 127.0.0.1 that answers every list empty except the categories, whose pages each test shapes.
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImportSourceError } from "../../src/domain/errors.ts";
import { importInto } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { type Handler, type TestHost, testHost } from "./helpers/remote-hosts.ts";

const MAX_PAGES = 5;
const MAX_PAGE_BYTES = 1024 * 1024;
const PROMPTLY_MS = 15_000;

/** What the source does when asked for page `page` of its categories. */
type CategoryPages = (page: number, res: ServerResponse, host: TestHost) => void;

const json = (res: ServerResponse, body: unknown) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
const category = (n: number) => ({ id: `c${n}`, slug: `c-${n}`, name: `C ${n}`, description: null });

function fakeSource(categoryPages: CategoryPages): Handler {
  return (req, res, host) => {
    const url = new URL(req.url ?? "/", "http://source");
    const member = url.pathname.split("/").pop() ?? "";
    const page = url.searchParams.get("page");
    if (url.pathname === "/v1/categories" && page) return categoryPages(Number(page), res, host);
    // Optional routes not offered; drafts not listable: the least the importer then asks for.
    if (["fields", "media"].includes(member) || url.searchParams.get("status") === "all")
      return res.writeHead(404).end();
    json(res, { [member]: [], pagination: { nextPage: null } });
  };
}

/** The category page requests the source got. */
const pageRequests = (host: TestHost) =>
  host.requests.filter((path) => /^\/v1\/categories\?.*page=/.test(path));

let app: TestApp;
let strict: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      IMPORT_FETCH_TIMEOUT_MS: "2000",
      IMPORT_SOURCE_MAX_PAGES: String(MAX_PAGES),
      IMPORT_SOURCE_MAX_PAGE_BYTES: String(MAX_PAGE_BYTES),
    },
  });
  strict = await startTestApp();
}, 120_000);
afterAll(async () => {
  await Promise.all([app?.close(), strict?.close()]);
});

async function importFrom(target: TestApp, host: TestHost) {
  const ws = await target.workspace();
  const started = performance.now();
  const outcome = await importInto(
    { db: target.db, config: target.config, storage: target.mediaStorage },
    { ...ws, name: "From a source" },
    { from: "marble", location: host.url("/v1"), key: "sk_source-key" },
    { dryRun: false, webhooks: false },
  ).then(
    (summary) => ({ summary, error: null }),
    (error: unknown) => ({ summary: null, error }),
  );
  return { ...outcome, took: performance.now() - started };
}

describe("a /v1 source is read within bounds", () => {
  it("an endless list stops at IMPORT_SOURCE_MAX_PAGES pages", async () => {
    const host = await testHost(
      fakeSource((page, res) =>
        json(res, { categories: [category(page)], pagination: { nextPage: page + 1 } }),
      ),
    );
    try {
      const { error, took } = await importFrom(app, host);
      expect(error).toBeInstanceOf(ImportSourceError);
      expect((error as Error).message).toMatch(`has more than ${MAX_PAGES} pages (IMPORT_SOURCE_MAX_PAGES)`);
      expect(pageRequests(host)).toHaveLength(MAX_PAGES);
      expect(took).toBeLessThan(PROMPTLY_MS);
    } finally {
      await host.close();
    }
  }, 60_000);

  it("a page given again stops the import", async () => {
    const host = await testHost(
      fakeSource((page, res) => json(res, { categories: [category(1)], pagination: { nextPage: page + 1 } })),
    );
    try {
      const { error } = await importFrom(app, host);
      expect(error).toBeInstanceOf(ImportSourceError);
      expect((error as Error).message).toMatch("gave the same page again (page 2)");
      expect(pageRequests(host)).toHaveLength(2);
    } finally {
      await host.close();
    }
  }, 60_000);

  it("an empty page ends the list, whatever the source says comes next", async () => {
    const host = await testHost(
      fakeSource((page, res) =>
        json(res, { categories: page === 1 ? [category(1)] : [], pagination: { nextPage: page + 1 } }),
      ),
    );
    try {
      const { summary, error } = await importFrom(app, host);
      expect(error).toBeNull();
      expect(summary?.byKind.category).toMatchObject({ created: 1, failed: 0 });
      expect(pageRequests(host)).toHaveLength(2);
    } finally {
      await host.close();
    }
  }, 60_000);

  it("a page larger than IMPORT_SOURCE_MAX_PAGE_BYTES is cut off while it arrives", async () => {
    const host = await testHost(
      fakeSource((_page, res, self) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"categories":[');
        const item = `${JSON.stringify(category(1))},`.repeat(1000);
        const pump = () => {
          while (!res.destroyed && res.write(item)) self.bytesSent += item.length;
        };
        res.on("drain", pump);
        pump();
      }),
    );
    try {
      const { error, took } = await importFrom(app, host);
      expect(error).toBeInstanceOf(ImportSourceError);
      expect((error as Error).message).toMatch(
        "could not be fetched (no usable answer within 2 s and 1 MiB)",
      );
      expect(took).toBeLessThan(PROMPTLY_MS);
      await expect.poll(() => host.open, { timeout: 5_000 }).toBe(0);
      expect(host.bytesSent).toBeLessThan(MAX_PAGE_BYTES + 16 * 1024 * 1024);
    } finally {
      await host.close();
    }
  }, 60_000);

  it("a page that never comes fails at the request deadline", async () => {
    const host = await testHost(fakeSource(() => {}));
    try {
      const { error, took } = await importFrom(app, host);
      expect(error).toBeInstanceOf(ImportSourceError);
      expect((error as Error).message).toMatch("could not be fetched (no usable answer within 2 s");
      expect(took).toBeLessThan(PROMPTLY_MS);
      await expect.poll(() => host.open, { timeout: 5_000 }).toBe(0);
    } finally {
      await host.close();
    }
  }, 60_000);

  it("a source at a loopback address is refused while private targets are (no request made)", async () => {
    const host = await testHost(fakeSource((_page, res) => json(res, { categories: [] })));
    try {
      const { error } = await importFrom(strict, host);
      expect(error).toBeInstanceOf(ImportSourceError);
      expect((error as Error).message).toMatch("an import fetches http(s) URLs at public addresses only");
      expect(host.connections).toBe(0);
    } finally {
      await host.close();
    }
  }, 60_000);
});
