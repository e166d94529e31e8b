// Real posts folders (fixtures/real/README.md: Jekyll _posts, Hugo content/post with TOML and YAML front
// matter, Astro's content collection) imported with --from markdown and read back through the API,
// against each file's front matter as the `yaml` and `smol-toml` packages read it: every post with its
// title, slug (Jekyll's date prefix dropped), status, date in UTC (front matter, else the Jekyll file
// name's), authors, category and tags (Jekyll's space-separated lists split), and body; Hugo's section
// page `_index.md` counted as left out, not imported as a post; a post with no date refused as needing
// one, never published on 1970-01-01. The process runs in Tokyo's time zone: "Jul 08 2022" is that day
// wherever the import runs.
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { marked } from "marked";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { inTimeZone } from "../helpers/time-zone.ts";
import { type ApiPost, bodyShape, type ImportedCorpus, importReal, REAL } from "./helpers/real-corpus.ts";
import { scratchImport } from "./helpers/scratch-import.ts";

inTimeZone("Asia/Tokyo");

const FOLDERS = ["jekyll", "hugo", "astro"];
const MARKDOWN = /\.(md|markdown|mdx)$/;
const JEKYLL_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})-/;

interface SourceFile {
  name: string;
  data: Record<string, unknown>;
  body: string;
}

/** Each file's front matter (TOML between +++, YAML between ---) and body, read without the importer. */
function readFolder(folder: string): SourceFile[] {
  return readdirSync(path.join(REAL, folder))
    .filter((name) => MARKDOWN.test(name))
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(REAL, folder, name), "utf8");
      const toml = /^\+\+\+\n([\s\S]*?)\n\+\+\+\n?/.exec(text);
      const yaml = /^---\n([\s\S]*?)\n---\n?/.exec(text);
      const fence = toml ?? yaml;
      const data = toml ? parseToml(toml[1] ?? "") : yaml ? parseYaml(yaml[1] ?? "") : {};
      return {
        name,
        data: data as Record<string, unknown>,
        body: fence ? text.slice(fence[0].length) : text,
      };
    });
}

/** Jekyll's rule for categories and tags: the plural key wins; as a string it is split at spaces. */
function pluralized(data: Record<string, unknown>, singular: string, plural: string): string[] {
  const value = data[plural] ?? (data[singular] === undefined ? undefined : [data[singular]]);
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  return Array.isArray(value) ? value.map(String) : [];
}

/** A front matter date as an instant: a date read as such, or a string, UTC when it names no zone. */
function instantOf(file: SourceFile): string | null {
  const value = file.data.date ?? file.data.publishDate ?? file.data.pubDate;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string")
    return new Date(
      /(Z|[+-]\d\d:?\d\d)$/.test(value) || /^\d{4}-\d\d-\d\d$/.test(value) ? value : `${value} UTC`,
    ).toISOString();
  const named = JEKYLL_DATE.exec(file.name);
  return named
    ? new Date(Date.UTC(Number(named[1]), Number(named[2]) - 1, Number(named[3]))).toISOString()
    : null;
}

/** What a markdown body means, as marked (CommonMark) renders it, before the import's reading of it. */
const rendered = (body: string) => marked.parse(body, { async: false });

const isSectionPage = (file: SourceFile) => /^_index\./.test(file.name);

describe.each(FOLDERS)("import --from markdown of the real folder %s", (folder) => {
  let app: TestApp;
  let files: SourceFile[];
  let imported: ImportedCorpus;
  let posts: ApiPost[];
  beforeAll(async () => {
    app = await startTestApp();
    files = readFolder(folder);
    imported = await importReal(app, "markdown", folder);
    posts = await imported.posts();
  }, 120_000);
  afterAll(async () => app?.close());

  const postFiles = () => files.filter((file) => !isSectionPage(file));
  const slugOf = (file: SourceFile) =>
    typeof file.data.slug === "string"
      ? file.data.slug
      : file.name.replace(MARKDOWN, "").replace(JEKYLL_DATE, "");
  const arrived = (file: SourceFile) => posts.find((post) => post.slug === slugOf(file));

  it("imports every post, and counts Hugo's section pages and relative covers as left out", () => {
    expect(imported.summary.failures).toEqual([]);
    expect(imported.summary.conflicts).toEqual([]);
    expect(posts).toHaveLength(postFiles().length);
    const sections = files.filter(isSectionPage).length;
    expect(imported.summary.leftOut["Hugo section pages (_index.md)"] ?? 0).toBe(sections);
    const covers = postFiles().filter((file) => {
      const cover = file.data.heroImage ?? file.data.cover ?? file.data.image;
      return typeof cover === "string" && !/^https?:\/\//.test(cover);
    }).length;
    expect(imported.summary.leftOut["markdown covers with a relative path (not imported)"] ?? 0).toBe(covers);
    expect(imported.dryRun.byKind).toEqual(imported.summary.byKind);
    expect(imported.dryRun.leftOut).toEqual(imported.summary.leftOut);
  });

  it("keeps each post's title, slug, status and date in UTC (the Jekyll file name's when it has none)", () => {
    for (const file of postFiles()) {
      const post = arrived(file);
      expect(post, file.name).toBeDefined();
      expect(post?.title).toBe(typeof file.data.title === "string" ? file.data.title : file.name);
      const draft = file.data.draft === true || file.data.published === false;
      expect(post?.status).toBe(draft ? "draft" : "published");
      expect(post?.publishedAt, file.name).toBe(instantOf(file));
    }
  });

  it("gives each post its authors, category and tags", () => {
    for (const file of postFiles()) {
      const post = arrived(file);
      const authors = file.data.authors ?? file.data.author;
      expect(
        post?.authors.map((author) => author.name),
        file.name,
      ).toEqual(authors === undefined ? [] : Array.isArray(authors) ? authors : [authors]);
      const [category] = pluralized(file.data, "category", "categories");
      expect(post?.category.name, file.name).toBe(category ?? "Uncategorized");
      expect(post?.tags.map((tag) => tag.name).sort(), file.name).toEqual(
        [...new Set(pluralized(file.data, "tag", "tags"))].sort(),
      );
    }
  });

  it("keeps each body's links, images, headings and code blocks, and its text in paragraphs", () => {
    for (const file of postFiles()) {
      const after = bodyShape(arrived(file)?.content ?? "");
      const before = bodyShape(rendered(file.body));
      expect({ ...after, paragraphs: 0 }, file.name).toEqual({ ...before, paragraphs: 0 });
      if (file.body.trim()) expect(after.paragraphs, file.name).toBeGreaterThan(0);
    }
  });
});

describe("import --from markdown of a post with no date", () => {
  const scratch = scratchImport("undated");

  it("refuses it as needing a date, rather than publishing it on 1970-01-01", async () => {
    const { app, folder } = scratch;
    // A real Jekyll post without its file name's date: nothing says when it was written.
    copyFileSync(path.join(REAL, "jekyll/2021-08-24-no-author.md"), path.join(folder, "no-author.md"));
    const ws = await app.workspace("undated");
    const summary = await scratch.run(ws, { from: "markdown", location: folder }, { remoteMedia: false });
    expect(summary.failures).toEqual([
      {
        kind: "post",
        name: "no-author.md",
        reason:
          "it needs a date: none in its front matter (date, publishDate or pubDate) nor in its file name (YYYY-MM-DD-title.md)",
      },
    ]);
    const res = await app.request("GET", "/v1/posts?status=all", { key: ws.privateKey });
    expect(res.body.posts).toEqual([]);
  });
});
