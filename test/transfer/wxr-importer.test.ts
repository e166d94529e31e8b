// The WordPress importer (--from wxr): a WXR export's authors, categories, tags, posts (published,
// draft, scheduled), attachments by URL and featured images, read back through the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
