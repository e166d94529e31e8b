// The markdown folder importer (--from markdown): Hugo / Jekyll / Astro style files with YAML front
// matter, read back through the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImporterFixture, importerFixture } from "./helpers/importer-fixture.ts";

describe("import --from markdown", () => {
  let fx: ImporterFixture;
  beforeAll(async () => {
    fx = await importerFixture("markdown", "markdown");
  }, 60_000);
  afterAll(async () => fx?.close());

  it("--dry-run reports what would be created and writes nothing", async () => {
    const summary = await fx.run({ dryRun: true });
    expect(summary.byKind.post).toMatchObject({ created: 3, failed: 0 });
    expect(summary.byKind.author?.created).toBe(2);
    expect((await fx.get("/v1/posts?status=all")).posts).toEqual([]);
  });

  it("imports each file as a post: front matter title, slug, date, draft, tags, category, authors, cover", async () => {
    const summary = await fx.run();
    expect(summary.totals).toMatchObject({ created: 11, conflict: 0, failed: 0 });
    const { post } = await fx.get("/v1/posts/hello-world");
    expect(post).toMatchObject({
      title: "Hello, world",
      status: "published",
      publishedAt: "2024-02-10T09:30:00.000Z",
      description: "The first post of the site.",
      category: { slug: "notes", name: "Notes" },
      authors: [{ slug: "grace-hopper", name: "Grace Hopper" }],
    });
    expect(post.content).toContain("<strong>static generator</strong>");
    expect(post.coverImage).toMatch(new RegExp(`/${fx.ws.id}/[0-9a-f]{32}\\.png$`));
    const wip = (await fx.get("/v1/posts/wip?status=all")).post;
    expect(wip).toMatchObject({ status: "draft", category: { slug: "uncategorized" } });
    expect(wip.authors.map((a: { slug: string }) => a.slug)).toEqual(["grace-hopper", "alan-kay"]);
    const jekyll = (await fx.get("/v1/posts/from-jekyll?status=all")).post;
    expect(jekyll).toMatchObject({ scheduled: true, category: { slug: "engineering" } });
  });

  it("a second run of the same import changes nothing", async () => {
    const before = await fx.get("/v1/posts?status=all");
    const summary = await fx.run();
    expect(summary.totals).toMatchObject({ created: 0, updated: 0, skipped: 11 });
    expect(await fx.get("/v1/posts?status=all")).toEqual(before);
  });
});

// Issue 60, item 1: front matter is data. gray-matter evaluated `---js` / `---javascript` blocks as
// JavaScript in the importing process; a YAML alias bomb (nine levels of nine aliases) expanded to
// gigabytes. Each such file is now a failed post with its reason; YAML and TOML files import as usual.
describe("import --from markdown: front matter is data only", () => {
  let fx: ImporterFixture;
  beforeAll(async () => {
    delete process.env.FRONT_MATTER_RAN;
    fx = await importerFixture("markdown", "markdown-front-matter");
  }, 60_000);
  afterAll(async () => fx?.close());

  const reasonOf = (summary: Awaited<ReturnType<ImporterFixture["run"]>>, name: string) =>
    summary.failures.find((failure) => failure.name === name)?.reason;

  it("refuses ---js, ---javascript, YAML tags and alias bombs file by file, on a dry run too, running nothing", async () => {
    for (const dryRun of [true, false]) {
      const summary = await fx.run({ dryRun });
      expect(process.env.FRONT_MATTER_RAN).toBeUndefined();
      expect(summary.byKind.post).toMatchObject({ created: 2, failed: 4 });
      expect(reasonOf(summary, "runs-javascript.md")).toBe(
        'its front matter is marked "js": only YAML (---) and TOML (+++) front matter is read',
      );
      expect(reasonOf(summary, "runs-javascript-long.md")).toMatch(/marked "javascript": only YAML/);
      expect(reasonOf(summary, "yaml-tag.md")).toMatch(/^its YAML front matter is refused: Unresolved tag/);
      expect(reasonOf(summary, "alias-bomb.md")).toMatch(
        /^its YAML front matter is refused: Excessive alias/,
      );
    }
    expect((await fx.get("/v1/posts?status=all")).posts.map((p: { slug: string }) => p.slug).sort()).toEqual([
      "hugo-toml",
      "plain-yaml",
    ]);
  });

  it("reads TOML front matter between +++ fences (Hugo)", async () => {
    const { post } = await fx.get("/v1/posts/hugo-toml");
    expect(post).toMatchObject({
      title: "Written for Hugo",
      publishedAt: "2024-06-01T08:00:00.000Z",
      category: { slug: "notes", name: "Notes" },
      tags: [{ slug: "hugo" }],
    });
    expect(post.content).toContain("<strong>TOML</strong>");
  });
});
