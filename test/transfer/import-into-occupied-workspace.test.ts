// An archive imported into a second workspace of the same database, one that already has content and a
// webhook endpoint: the records get new ids (the source's are taken), slugs are kept, a slug the target
// already uses is a conflict listed in the summary and leaves the target's record as it was, and with
// --no-webhooks the change log hears every imported record while the target's endpoint receives none of
// them (the next ordinary write is delivered: the dispatcher was running all along).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportToFile, importInto, type TransferContext } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { seedEveryKind } from "./helpers/seed-every-kind.ts";

let app: TestApp;
let receiver: WebhookReceiver;
let source: TestWorkspace;
let target: TestWorkspace;
const folder = mkdtempSync(path.join(tmpdir(), "occupied-"));
const archive = path.join(folder, "site.tar.gz");
const context = (): TransferContext => ({ db: app.db, config: app.config, storage: app.mediaStorage });

const get = async (ws: TestWorkspace, requestPath: string) => {
  const res = await app.request("GET", requestPath, { key: ws.privateKey });
  expect(res.status, `GET ${requestPath}`).toBe(200);
  return res.body;
};

beforeAll(async () => {
  app = await startTestApp({ background: true, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  receiver = await startWebhookReceiver();
  source = await app.workspace("Source");
  target = await app.workspace("Occupied");
  await seedEveryKind(app, source, "http://127.0.0.1:9");
  await exportToFile(context(), { ...source, name: "Source" }, archive);
  // The target already holds a tag and a post under slugs the archive brings, and listens to webhooks.
  const write = async (requestPath: string, body: unknown) => {
    const res = await app.request("POST", requestPath, { key: target.privateKey, body });
    expect(res.status, `POST ${requestPath}: ${JSON.stringify(res.body)}`).toBe(201);
    return res.body;
  };
  const { category } = await write("/v1/categories", { name: "Mine", slug: "mine" });
  await write("/v1/tags", { name: "Rust (ours)", slug: "rust" });
  await write("/v1/posts", {
    title: "Our own post",
    slug: "published-post",
    description: "Was here first",
    content: "<p>Ours</p>",
    categoryId: category.id,
    status: "published",
  });
  await write("/v1/webhooks", {
    url: receiver.url,
    events: ["post.created", "post.published", "tag.created", "category.created", "author.created"],
  });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await receiver?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("import into a second, occupied workspace of the same database, with --no-webhooks", () => {
  it("reports the taken slugs as conflicts, leaves those records alone and imports the rest under new ids", async () => {
    const ourPost = (await get(target, "/v1/posts/published-post")).post;
    const summary = await importInto(
      context(),
      { ...target, name: "Occupied" },
      { from: "archive", location: archive },
      { dryRun: false, webhooks: false },
    );
    expect(summary.totals.failed).toBe(0);
    expect(summary.byKind.tag).toMatchObject({ created: 1, conflict: 1 });
    expect(summary.byKind.post).toMatchObject({ created: 2, conflict: 1 });
    expect(summary.conflicts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "tag", name: "rust" }),
        expect.objectContaining({ kind: "post", name: "published-post" }),
      ]),
    );
    // Not half imported: the target's own post is exactly as it was (its `fields` now name the imported
    // field definitions, with no value).
    expect((await get(target, "/v1/posts/published-post")).post).toEqual({
      ...ourPost,
      fields: { reading_time: null, series: null },
    });
    expect((await get(target, "/v1/tags/rust")).tag.name).toBe("Rust (ours)");
    // The rest came over with slugs kept and ids of their own.
    const imported = (await get(target, "/v1/posts/draft-post?status=all")).post;
    const original = (await get(source, "/v1/posts/draft-post?status=all")).post;
    expect(imported.id).not.toBe(original.id);
    expect(imported).toMatchObject({ slug: "draft-post", title: original.title, status: "draft" });
    // The source workspace is untouched.
    expect((await get(source, "/v1/posts/published-post")).post.title).toBe("A better title");
  });

  it("logs the imported records' events but delivers none of them; the next ordinary write is delivered", async () => {
    const events = (await get(target, "/v1/events?limit=100")).events as {
      type: string;
      data: { slug?: string };
    }[];
    expect(events.filter((event) => event.type === "post.created").map((event) => event.data.slug)).toEqual(
      expect.arrayContaining(["draft-post", "scheduled-post"]),
    );
    const res = await app.request("POST", "/v1/tags", {
      key: target.privateKey,
      body: { name: "After the import", slug: "after-the-import" },
    });
    expect(res.status).toBe(201);
    const delivered = await receiver.waitFor((received) =>
      received.some((r) => r.json.type === "tag.created" && r.json.data?.slug === "after-the-import"),
    );
    const importedSlugs = new Set(["draft-post", "scheduled-post", "go", "guides", "news", "ada", "bwk"]);
    expect(delivered.filter((r) => importedSlugs.has(String(r.json.data?.slug)))).toEqual([]);
  });
});
