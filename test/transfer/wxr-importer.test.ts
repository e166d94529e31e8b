// The WordPress importer (--from wxr): a WXR export's authors, categories, tags, posts (published,
// draft, scheduled), attachments by URL and featured images, read back through the API.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWordPressExport } from "../../src/transfer/sources/wordpress-wxr.ts";
import { type ImporterFixture, importerFixture } from "./helpers/importer-fixture.ts";

describe("import --from wxr", () => {
  let fx: ImporterFixture;
  beforeAll(async () => {
    fx = await importerFixture("wxr", "wordpress.wxr");
  }, 60_000);
  afterAll(async () => fx?.close());

  it("--dry-run reports what would be created and writes nothing", async () => {
    const summary = await fx.run({ dryRun: true });
    expect(summary.byKind.post).toMatchObject({ created: 3, failed: 0 });
    expect((await fx.get("/v1/posts?status=all")).posts).toEqual([]);
  });

  it("imports posts with categories, tags, author, excerpt, sticky flag, dates and the featured image", async () => {
    const summary = await fx.run();
    expect(summary.totals).toMatchObject({ conflict: 0, failed: 0 });
    const { post } = await fx.get("/v1/posts/building-a-workbench");
    expect(post).toMatchObject({
      title: "Building a workbench",
      status: "published",
      featured: true,
      description: "Four legs and a top.",
      publishedAt: "2024-04-02T10:00:00.000Z",
      category: { slug: "tools", name: "Tools" },
      authors: [{ slug: "mary", name: "Mary Shelley" }],
    });
    expect(post.tags.map((tag: { slug: string }) => tag.slug).sort()).toEqual(["beginners", "woodwork"]);
    expect(post.coverImage).toMatch(new RegExp(`/${fx.ws.id}/[0-9a-f]{32}\\.png$`));
    expect(post.content).toContain(post.coverImage);
    const draft = (await fx.get("/v1/posts/sharpening-chisels?status=all")).post;
    expect(draft).toMatchObject({ status: "draft", category: { slug: "uncategorized" } });
    const scheduled = (await fx.get("/v1/posts/summer-open-day?status=all")).post;
    expect(scheduled).toMatchObject({ status: "published", scheduled: true });
    const media = (await fx.get("/v1/media")).media;
    expect(media).toHaveLength(1);
    expect(media[0]).toMatchObject({ alt: "workbench.png", mimeType: "image/png" });
  });

  it("a second run of the same import changes nothing", async () => {
    const before = await fx.get("/v1/posts?status=all");
    const summary = await fx.run();
    expect(summary.totals.created + summary.totals.updated).toBe(0);
    expect(await fx.get("/v1/posts?status=all")).toEqual(before);
  });
});

// Issue 60, item 12: malformed XML imported 0 records and a file cut after an `</item>` part of them,
// both with success; a WXR nested 200,000 deep overflowed the stack. Each file is now refused whole.
describe("import --from wxr: files that are not whole WXR documents", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "wxr-refused-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const fixture = readFileSync(path.resolve(import.meta.dirname, "fixtures/wordpress.wxr"), "utf8");

  async function refusal(name: string, xml: string): Promise<unknown> {
    const file = path.join(folder, name);
    writeFileSync(file, xml);
    return openWordPressExport(file).then(
      () => "opened",
      (error: Error) => `${error.name}: ${error.message.replace(file, name)}`,
    );
  }

  it("refuses malformed XML, a file cut after an </item>, and nesting that would exhaust the stack", async () => {
    expect(await refusal("malformed.wxr", "<rss><channel><item><title>x</title></item></rss>")).toMatch(
      /^ImportSourceError: malformed\.wxr is not well-formed XML \(line 1, column \d+\): /,
    );
    const cut = fixture.slice(0, fixture.indexOf("</item>") + "</item>".length);
    expect(await refusal("cut.wxr", cut)).toMatch(/^ImportSourceError: cut\.wxr is not well-formed XML/);
    const deep = `<rss><channel>${"<a>".repeat(200_000)}${"</a>".repeat(200_000)}</channel></rss>`;
    expect(await refusal("deep.wxr", deep)).toBe(
      "ImportSourceError: deep.wxr is nested too deeply to be a WordPress WXR export",
    );
  });
});
