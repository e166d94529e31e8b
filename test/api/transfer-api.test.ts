// A workspace as one file through the API (issue 57's transfer scope): GET /v1/export streams the portable
// archive, POST /v1/import takes it (or a Ghost or WordPress export) and answers the import's summary, as
// the CLI's export and import do. Both need a private key with the transfer scope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const UPLOAD_LIMIT = 2 * 1024 * 1024;

let app: TestApp;
let source: TestWorkspace;
let target: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp({ env: { IMPORT_UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT) } });
  source = await app.workspace("Transfer source");
  target = await app.workspace("Transfer target");
  const category = await app.request("POST", "/v1/categories", {
    key: source.privateKey,
    body: { name: "Guides", slug: "guides" },
  });
  expect(category.status).toBe(201);
  for (const slug of ["first-guide", "second-guide"]) {
    const post = await app.request("POST", "/v1/posts", {
      key: source.privateKey,
      body: {
        title: slug,
        slug,
        content: "# Hello\n\nSome words.",
        description: "A guide",
        categoryId: category.body.category.id,
        status: "published",
        publishedAt: "2026-01-02T03:04:05.000Z",
      },
    });
    expect(post.status).toBe(201);
  }
});
afterAll(() => app?.close());

async function exportOf(key: string): Promise<Response> {
  return fetch(`${app.url}/v1/export`, { headers: { authorization: key } });
}

async function importInto(
  key: string,
  bytes: Uint8Array<ArrayBuffer>,
  query = "",
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${app.url}/v1/import${query}`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/octet-stream" },
    body: bytes,
  });
  return { status: response.status, body: await response.json() };
}

/** A private key of `ws` with every scope but transfer. */
async function keyWithoutTransfer(ws: TestWorkspace): Promise<string> {
  const made = await app.request("POST", "/v1/keys", {
    key: ws.privateKey,
    body: {
      kind: "private",
      scopes: ["drafts:read", "posts:write", "taxonomy:write", "media:write", "events:read", "keys:manage"],
    },
  });
  expect(made.status).toBe(201);
  return made.body.key;
}

describe("GET /v1/export and POST /v1/import", () => {
  it("carry a workspace into another: a dry run counts what the import then does, and a repeat changes nothing", async () => {
    const exported = await exportOf(source.privateKey);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("application/gzip");
    expect(exported.headers.get("cache-control")).toBe("no-store");
    const archive = new Uint8Array(await exported.arrayBuffer());
    expect([archive[0], archive[1]]).toEqual([0x1f, 0x8b]);

    const dry = await importInto(target.privateKey, archive, "?dryRun=true");
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, workspace: { id: target.id } });
    expect((await app.request("GET", "/v1/posts", { key: target.privateKey })).body.posts).toEqual([]);

    const real = await importInto(target.privateKey, archive);
    expect(real.status).toBe(200);
    expect(real.body.dryRun).toBe(false);
    expect(real.body.totals).toEqual(dry.body.totals);
    expect(real.body.byKind.post.created).toBe(2);
    const posts = await app.request("GET", "/v1/posts", { key: target.publicKey });
    expect(posts.body.posts.map((post: { slug: string }) => post.slug).sort()).toEqual([
      "first-guide",
      "second-guide",
    ]);

    const again = await importInto(target.privateKey, archive, "?from=archive");
    expect(again.status).toBe(200);
    expect(again.body.totals.created).toBe(0);
  });

  it("need the transfer scope: 403 naming it for a private key without it, and for a public key; 401 without a key", async () => {
    const narrow = await keyWithoutTransfer(source);
    const refusedExport = await exportOf(narrow);
    expect(refusedExport.status).toBe(403);
    expect(await refusedExport.json()).toMatchObject({ error: "Forbidden", requiredScope: "transfer" });
    const refusedImport = await importInto(narrow, new Uint8Array([1, 2, 3]));
    expect(refusedImport).toMatchObject({ status: 403, body: { requiredScope: "transfer" } });

    const fromPublic = await exportOf(source.publicKey);
    expect(fromPublic.status).toBe(403);
    expect((await fromPublic.json()).message).toMatch(/private API key/);
    expect((await fetch(`${app.url}/v1/export`)).status).toBe(401);
  });

  it("refuses what it cannot import with 400 or 413, naming no file of the server's", async () => {
    const garbage = await importInto(target.privateKey, new TextEncoder().encode("not an export at all"));
    expect(garbage.status).toBe(400);
    expect(garbage.body.message).toContain("the uploaded file");
    expect(garbage.body.message).not.toMatch(/content-import-|\/tmp\//);
    // Only what an upload can be is offered: a markdown folder or a /v1 source is the CLI's.
    expect(garbage.body.message).toContain("?from= (archive, ghost, wxr)");

    const badFrom = await importInto(target.privateKey, new Uint8Array([1]), "?from=wordpress&dryRun=maybe");
    expect(badFrom.status).toBe(400);
    expect(badFrom.body.details.map((detail: { field: string }) => detail.field)).toEqual(["from", "dryRun"]);

    const tooLarge = await importInto(target.privateKey, new Uint8Array(UPLOAD_LIMIT + 1024));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.message).toContain(String(UPLOAD_LIMIT));
    expect((await app.request("GET", "/ready")).status).toBe(200);
  });
});
