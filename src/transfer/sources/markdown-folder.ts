// A folder of markdown files with YAML or TOML front matter (front-matter.ts: data only; a file whose
// front matter is anything else is refused, with its reason) — the Hugo / Jekyll / Astro / Next.js
// content layout — as import records. Front matter read: title, slug (else the file name; Jekyll's date
// prefix dropped), date (or publishDate / pubDate; without a zone, UTC; none: the Jekyll file name's
// date, YYYY-M-D-title.md; none either: the post is refused as needing a date, never dated 1970),
// draft (or published: false), tags, categories (Jekyll's rule: the plural key wins, and as a string it
// is split at spaces; the first is the post's category; none: "uncategorized"), authors (or author),
// cover image (cover, image, coverImage, cover_image, featured_image, heroImage; an absolute URL is
// imported as media; a relative path names no file we can reach and is left out, counted), description
// (or summary, excerpt). The body is markdown, stored as sanitized HTML; an .mdx file's import and export
// lines (JavaScript) are dropped. Hugo's section pages (`_index.md`) are left out, counted. Two passes:
// the first reads front matter only (taxonomy and authors come before posts), the second one body at a
// time.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { SourceRecord } from "../../content/import/import-records.ts";
import { markdownToHtml } from "../../content/posts/markdown.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { FrontMatterError, type MarkdownParts, splitFrontMatter } from "./front-matter.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource } from "./source-types.ts";

const MARKDOWN = /\.(md|markdown|mdx)$/i;
const UNCATEGORIZED = { slug: "uncategorized", name: "Uncategorized" };

interface FrontMatter {
  [key: string]: unknown;
}

async function markdownFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && MARKDOWN.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === "string" && value ? [value] : [];

/** Jekyll's reading of categories and tags: the plural key wins; as a string it is split at spaces. */
function pluralized(data: FrontMatter, singular: string, plural: string): string[] {
  const value = data[plural];
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  return value !== undefined && value !== null ? list(value) : list(data[singular]);
}

const categoriesOf = (data: FrontMatter) => pluralized(data, "category", "categories");
const tagsOf = (data: FrontMatter) => pluralized(data, "tag", "tags");

const firstOf = (data: FrontMatter, keys: string[]): unknown =>
  keys.map((key) => data[key]).find((v) => v != null);

/** A zone at a date string's end ("Z", "+02:00", "GMT"): the instant it names is its own. */
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2}|\b(?:GMT|UTC))$/i;
/** A date without a time ("2019-03-05"): JavaScript reads it as UTC already. */
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Jekyll's file names: `2016-04-08-title.md`, months and days with or without their zero. */
const JEKYLL_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})-/;

/**
 * The post's date: its front matter's (a date YAML or TOML read as one; a string without a zone is
 * UTC, as "Jul 08 2022" means that day wherever the import runs), else its Jekyll file name's, else null.
 */
function dateOf(data: FrontMatter, file: string): Date | null {
  const value = firstOf(data, ["date", "publishDate", "pubDate", "published_at"]);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (typeof value === "string" && !Number.isNaN(Date.parse(value))) {
    const text = value.trim();
    const parsed = new Date(text);
    if (HAS_ZONE.test(text) || ISO_DAY.test(text)) return parsed;
    return new Date(
      Date.UTC(
        parsed.getFullYear(),
        parsed.getMonth(),
        parsed.getDate(),
        parsed.getHours(),
        parsed.getMinutes(),
        parsed.getSeconds(),
        parsed.getMilliseconds(),
      ),
    );
  }
  const named = JEKYLL_DATE.exec(path.basename(file));
  if (!named) return null;
  const date = new Date(Date.UTC(Number(named[1]), Number(named[2]) - 1, Number(named[3])));
  return Number.isNaN(date.getTime()) ? null : date;
}

const NEEDS_A_DATE =
  "it needs a date: none in its front matter (date, publishDate or pubDate) nor in its file name (YYYY-MM-DD-title.md)";

function coverOf(data: FrontMatter): string | null {
  const value = firstOf(data, ["cover", "image", "coverImage", "cover_image", "featured_image", "heroImage"]);
  if (value && typeof value === "object" && "image" in value)
    return String((value as { image: unknown }).image);
  return typeof value === "string" ? value : null;
}

function slugOf(data: FrontMatter, file: string): string {
  if (typeof data.slug === "string" && data.slug) return slugify(data.slug);
  const base = path.basename(file).replace(MARKDOWN, "");
  const name = base === "index" ? path.basename(path.dirname(file)) : base;
  return slugify(name.replace(JEKYLL_DATE, ""));
}

/** Hugo's section page (`_index.md`): the list page of its folder, not a post. */
const isSectionPage = (file: string) => /^_index\./i.test(path.basename(file));

/** An .mdx file's top-level `import` and `export` lines are JavaScript for its site's build, not text. */
function withoutMdxStatements(file: string, body: string): string {
  if (!/\.mdx$/i.test(file)) return body;
  let fenced = false;
  return body
    .split("\n")
    .filter((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      return fenced || !/^(import|export)\s/.test(line);
    })
    .join("\n");
}

export async function openMarkdownFolder(folder: string): Promise<ImportSource> {
  const files = await markdownFiles(folder).catch(() => {
    throw new ImportSourceError(`${folder} is not a readable folder`);
  });
  if (files.length === 0) throw new ImportSourceError(`${folder} holds no markdown files`);
  return { origin: `markdown:${path.resolve(folder)}`, records: records(folder, files), total: null };
}

/** The file's front matter and body, or why it cannot be imported (FrontMatterError's reason). */
async function readMarkdown(file: string): Promise<MarkdownParts | string> {
  try {
    return splitFrontMatter(await readFile(file, "utf8"));
  } catch (error) {
    if (error instanceof FrontMatterError) return error.message;
    throw error;
  }
}

async function* records(folder: string, files: string[]): AsyncGenerator<SourceRecord> {
  const categories = new Map<string, string>();
  const tags = new Map<string, string>();
  const authors = new Map<string, string>();
  const covers = new Set<string>();
  const posts = files.filter((file) => !isSectionPage(file));
  for (const file of posts) {
    const parts = await readMarkdown(file);
    // A refused file brings no taxonomy: it is reported once, as a failed post, by the second pass.
    if (typeof parts === "string") continue;
    const { data } = parts;
    const postCategories = categoriesOf(data);
    if (postCategories.length === 0) categories.set(UNCATEGORIZED.slug, UNCATEGORIZED.name);
    for (const name of postCategories) categories.set(slugify(name), name);
    for (const name of tagsOf(data)) tags.set(slugify(name), name);
    for (const name of list(data.authors ?? data.author)) authors.set(slugify(name), name);
    const cover = coverOf(data);
    if (isHttpUrl(cover)) covers.add(cover);
  }
  for (const file of files.filter(isSectionPage)) {
    const sourceId = path.relative(folder, file);
    yield { kind: "post", sourceId, label: sourceId, leftOut: "Hugo section pages (_index.md)" };
  }
  for (const [slug, name] of categories)
    yield { kind: "category", sourceId: slug, slug, name, description: null };
  for (const [slug, name] of tags) yield { kind: "tag", sourceId: slug, slug, name, description: null };
  for (const [slug, name] of authors)
    yield {
      kind: "author",
      sourceId: slug,
      slug,
      name,
      image: null,
      bio: null,
      role: null,
      email: null,
      socials: [],
    };
  for (const url of covers) yield mediaAtUrl(url);
  for (const file of posts) {
    const parts = await readMarkdown(file);
    const sourceId = path.relative(folder, file);
    if (typeof parts === "string") {
      yield { kind: "post", sourceId, label: sourceId, rejected: parts };
      continue;
    }
    const { data, content } = parts;
    const date = dateOf(data, file);
    if (!date) {
      yield { kind: "post", sourceId, label: sourceId, rejected: NEEDS_A_DATE };
      continue;
    }
    const title = typeof data.title === "string" ? data.title : path.basename(file).replace(MARKDOWN, "");
    const draft = data.draft === true || data.published === false;
    const description = firstOf(data, ["description", "summary", "excerpt"]);
    const postCategories = categoriesOf(data);
    const cover = coverOf(data);
    if (cover && !isHttpUrl(cover))
      yield {
        kind: "media",
        sourceId: `${sourceId}#cover`,
        label: `${sourceId}: ${cover}`,
        leftOut: "markdown covers with a relative path (not imported)",
      };
    yield {
      kind: "post",
      sourceId,
      slug: slugOf(data, file),
      title,
      status: draft ? "draft" : "published",
      featured: data.featured === true,
      coverImage: isHttpUrl(cover) ? cover : null,
      description: typeof description === "string" ? description : "",
      content: markdownToHtml(withoutMdxStatements(file, content)),
      attribution: null,
      publishedAt: date.toISOString(),
      category: postCategories[0] ? slugify(postCategories[0]) : UNCATEGORIZED.slug,
      tags: tagsOf(data).map(slugify),
      authors: list(data.authors ?? data.author).map(slugify),
      fields: {},
      revisions: [],
      createdAt: date.toISOString(),
      updatedAt: date.toISOString(),
    };
  }
}
