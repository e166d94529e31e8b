// Real WordPress exports (fixtures/real/README.md: WXR 1.0 to 1.2, WordPress 3.0 to 6.5 and
// WordPress.com) imported with --from wxr and read back through the API, against the file as
// fast-xml-parser reads it: every post arrives with its status, title as text, slug, date to the second
// in UTC, author, category and tags; its body keeps its links, images, headings and code blocks and has
// its paragraphs, including the classic editor's bodies that WordPress stores without <p>; categories
// and tags keep their descriptions; pages, menu items and comments are counted as left out.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import {
  A_TAG,
  type ApiPost,
  bodyShape,
  type ImportedCorpus,
  importReal,
  NO_ENTITY,
  REAL,
  utc,
} from "./helpers/real-corpus.ts";

const FILES = [
  "wordpress/theme-unit-test-data.xml",
  "wordpress/valid-wxr-1.0.xml",
  "wordpress/valid-wxr-1.1.xml",
  "wordpress/small-export.xml",
  "wordpress/term-formats.xml",
  "wordpress/wxr-simple.xml",
  "wordpress/wxr-utf-8-challenges.xml",
];

type Node = Record<string, unknown>;
const list = (value: unknown): Node[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value as Node];
const text = (value: unknown): string =>
  value === undefined || value === null
    ? ""
    : typeof value === "object"
      ? String((value as Node)["#text"] ?? "")
      : String(value);

interface SourcePost {
  id: string;
  title: string;
  postName: string;
  status: string;
  date: string;
  creator: string;
  categories: string[];
  tags: string[];
  content: string;
}

interface SourceExport {
  posts: SourcePost[];
  /** Display names by login (the file's <wp:author> blocks; none in WXR 1.0 and WordPress.com files). */
  authors: Map<string, string>;
  categories: { slug: string; description: string }[];
  tags: { slug: string; description: string }[];
  itemsOfType: (type: string) => number;
  comments: number;
}

/** The export as fast-xml-parser reads it, independently of the importer's reading. */
function readExport(file: string): SourceExport {
  const document = parse(readFileSync(path.join(REAL, file), "utf8"), {
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseNodeValue: false,
  });
  const channel = document.rss.channel as Node;
  const items = list(channel.item);
  const terms = (post: Node, domain: string) =>
    list(post.category)
      .filter((term) => term["@_domain"] === domain)
      .map((term) => visible(text(term["@_nicename"])));
  return {
    posts: items
      .filter((item) => text(item["wp:post_type"]) === "post")
      .map((item) => ({
        id: text(item["wp:post_id"]),
        title: text(item.title),
        postName: text(item["wp:post_name"]),
        status: text(item["wp:status"]),
        date: text(item["wp:post_date_gmt"]).startsWith("0000")
          ? text(item["wp:post_date"])
          : text(item["wp:post_date_gmt"]),
        creator: text(item["dc:creator"]),
        categories: terms(item, "category"),
        tags: terms(item, "post_tag"),
        content: text(item["content:encoded"]),
      })),
    authors: new Map(
      list(channel["wp:author"]).map((author) => [
        text(author["wp:author_login"]),
        text(author["wp:author_display_name"]),
      ]),
    ),
    categories: list(channel["wp:category"]).map((category) => ({
      slug: text(category["wp:category_nicename"]),
      description: text(category["wp:category_description"]).trim(),
    })),
    tags: list(channel["wp:tag"]).map((tag) => ({
      slug: text(tag["wp:tag_slug"]),
      description: text(tag["wp:tag_description"]).trim(),
    })),
    itemsOfType: (type) => items.filter((item) => text(item["wp:post_type"]) === type).length,
    comments: items.reduce((sum, item) => sum + list(item["wp:comment"]).length, 0),
  };
}

const SLUG = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
/** A name as WordPress meant it: without invisible format characters (zero-width, bidi controls). */
const visible = (name: string) => name.replace(/\p{Cf}/gu, "");
/** The login a dc:creator names: what a login may hold (WordPress: letters, digits, _ . @ - and space). */
const loginOf = (creator: string) => creator.replace(/[^A-Za-z0-9_.@ -]/g, "");
const published = (status: string) => status === "publish" || status === "future";

/** Text a reader sees as paragraphs in a classic body: runs between blank lines that start as text. */
function textRuns(content: string): number {
  return content
    .replace(/<pre[\s\S]*?<\/pre>/gi, "")
    .split(/\n\s*\n/)
    .filter((run) => /^[^<[\s]/.test(run.trim())).length;
}

describe.each(FILES)("import --from wxr of the real export %s", (file) => {
  let app: TestApp;
  let source: SourceExport;
  let imported: ImportedCorpus;
  let posts: ApiPost[];
  beforeAll(async () => {
    app = await startTestApp();
    source = readExport(file);
    imported = await importReal(app, "wxr", file);
    posts = await imported.posts();
  }, 120_000);
  afterAll(async () => app?.close());

  /** The API's post for a source post: by its slug when WordPress gave it one we keep, else by date and title. */
  const arrived = (post: SourcePost): ApiPost | undefined =>
    SLUG.test(post.postName)
      ? posts.find((candidate) => candidate.slug === post.postName)
      : posts.find((candidate) => candidate.publishedAt === utc(post.date) && !SLUG.test(candidate.title));

  it("imports every post, with none failed, in conflict or lost", () => {
    expect(imported.summary.failures).toEqual([]);
    expect(imported.summary.conflicts).toEqual([]);
    expect(imported.summary.byKind.post?.created ?? 0).toBe(source.posts.length);
    expect(posts).toHaveLength(source.posts.length);
    const statuses = (values: string[]) => ({
      published: values.filter((status) => status === "published").length,
      draft: values.filter((status) => status === "draft").length,
    });
    expect(statuses(posts.map((post) => post.status))).toEqual(
      statuses(source.posts.map((post) => (published(post.status) ? "published" : "draft"))),
    );
  });

  it("--dry-run reports what the import then does", () => {
    expect(imported.dryRun.byKind).toEqual(imported.summary.byKind);
    expect(imported.dryRun.leftOut).toEqual(imported.summary.leftOut);
    expect(imported.dryRun.failures).toEqual(imported.summary.failures);
  });

  it("keeps each post's slug, date in UTC to the second, and title as text", () => {
    for (const post of source.posts) {
      const found = arrived(post);
      expect(found, `post ${post.id} "${post.title}"`).toBeDefined();
      if (!found) continue;
      expect(found.publishedAt).toBe(utc(post.date));
      expect(found.slug).toMatch(SLUG);
      expect(found.title).not.toMatch(A_TAG);
      expect(found.title).not.toMatch(NO_ENTITY);
      if (post.title && !/[&<]/.test(post.title)) expect(found.title).toBe(post.title.trim());
    }
    expect(new Set(posts.map((post) => post.slug)).size).toBe(posts.length);
  });

  it("gives each post its author (dc:creator), category and tags", () => {
    for (const post of source.posts) {
      const found = arrived(post);
      if (!found) continue;
      expect(found.authors.map((author) => author.name)).toEqual([
        source.authors.get(post.creator) || source.authors.get(loginOf(post.creator)) || post.creator,
      ]);
      const [first] = post.categories.filter((slug) => SLUG.test(slug));
      expect(found.category.slug).toBe(first ?? "uncategorized");
      expect(found.tags.map((tag) => tag.slug).sort()).toEqual(
        [...new Set(post.tags.filter((slug) => SLUG.test(slug)))].sort(),
      );
    }
  });

  it("keeps each body's links, images, headings and code blocks, and gives text its paragraphs", () => {
    for (const post of source.posts) {
      const found = arrived(post);
      if (!found) continue;
      const before = bodyShape(post.content);
      const after = bodyShape(found.content);
      const label = `post ${post.id} "${post.title}"`;
      expect({ ...after, paragraphs: 0 }, label).toEqual({ ...before, paragraphs: 0 });
      expect(after.paragraphs, label).toBeGreaterThanOrEqual(before.paragraphs);
      if (!post.content.includes("<!-- wp:"))
        expect(after.paragraphs, label).toBeGreaterThanOrEqual(textRuns(post.content));
    }
  });

  it("keeps category and tag descriptions", async () => {
    const categories = (await imported.get("/v1/categories?limit=100")).categories as {
      slug: string;
      description: string | null;
    }[];
    const tags = (await imported.get("/v1/tags?limit=100")).tags as {
      slug: string;
      description: string | null;
    }[];
    for (const [kind, terms, rows] of [
      ["category", source.categories, categories],
      ["tag", source.tags, tags],
    ] as const)
      for (const term of terms.filter((entry) => entry.description && SLUG.test(entry.slug)))
        expect(rows.find((row) => row.slug === term.slug)?.description, `${kind} ${term.slug}`).toBe(
          term.description,
        );
  });

  it("counts what it leaves out: pages, menu items, comments, attachments not fetched", () => {
    const expected: Record<string, number> = {};
    const add = (what: string, count: number) => {
      if (count > 0) expected[what] = count;
    };
    add("WordPress pages", source.itemsOfType("page"));
    add("WordPress menu items", source.itemsOfType("nav_menu_item"));
    add("WordPress comments", source.comments);
    add("media files not fetched (--no-remote-media; their URLs are kept)", source.itemsOfType("attachment"));
    expect(imported.summary.leftOut).toEqual(expected);
  });
});
