// The admin API's export: GET /admin/workspaces/{workspace}/export streams the portable archive
// (the CLI export's format), behind the admin token.
import { Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportRecord } from "../../src/content/import/import-records.ts";
import { archiveRecords } from "../../src/transfer/archive/archive-records.ts";
import type { Manifest } from "../../src/transfer/format.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const TOKEN = "admin-token-for-export-tests-0123456789";

describe("GET /admin/workspaces/{workspace}/export", () => {
  let app: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    app = await startTestApp({ env: { ADMIN_TOKEN: TOKEN } });
    ws = await app.workspace("Exported");
    const res = await app.request("POST", "/v1/categories", {
      key: ws.privateKey,
      body: { name: "Notes", slug: "notes" },
    });
    expect(res.status).toBe(201);
  }, 60_000);
  afterAll(async () => app?.close());

  it("streams the workspace as a portable .tar.gz", async () => {
    const response = await fetch(`${app.url}/admin/workspaces/${ws.slug}/export`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/gzip");
    let manifest: Manifest | null = null;
    const records: ImportRecord[] = [];
    const body = Readable.fromWeb(response.body as ReadableStream);
    for await (const record of archiveRecords(body, (read) => {
      manifest = read;
    }))
      records.push(record);
    expect(manifest).toMatchObject({
      formatVersion: 2,
      workspace: { id: ws.id, slug: ws.slug },
      counts: { locale: 1, category: 1 },
    });
    expect(records).toEqual([
      expect.objectContaining({ kind: "locale", code: "en", isDefault: true }),
      expect.objectContaining({ kind: "category", slug: "notes", name: "Notes" }),
    ]);
  });

  it("refuses a request without the admin token", async () => {
    const response = await fetch(`${app.url}/admin/workspaces/${ws.slug}/export`);
    expect(response.status).toBe(401);
  });
});
