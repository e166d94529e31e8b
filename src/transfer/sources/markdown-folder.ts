// A folder of markdown files with YAML or TOML front matter (front-matter.ts: data only; a file whose
// front matter is anything else is refused, with its reason) — the Hugo / Jekyll / Astro / Next.js
// content layout — as import records. Front matter read: title, slug (else the file name; Jekyll's date prefix
// dropped), date (or publishDate / pubDate), draft (or published: false), tags, categories (the first is
// the post's category; none: "uncategorized"), authors (or author), cover image (cover, image,
// coverImage, cover_image, featured_image, heroImage; an absolute URL is imported as media),
// description (or summary, excerpt). The body is markdown, stored as sanitized HTML. Two passes: the
// first reads front matter only (taxonomy and authors come before posts), the second one body at a time.
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

const firstOf = (data: FrontMatter, keys: string[]): unknown =>
  keys.map((key) => data[key]).find((v) => v != null);

function dateOf(data: FrontMatter): Date | null {
  const value = firstOf(data, ["date", "publishDate", "pubDate", "published_at"]);
  if (value instanceof Date) return value;
  if (typeof value === "string" && !Number.isNaN(Date.parse(value))) return new Date(value);
  return null;
}

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
  return slugify(name.replace(/^\d{4}-\d{2}-\d{2}-/, ""));
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
  for (const file of files) {
    const parts = await readMarkdown(file);
    // A refused file brings no taxonomy: it is reported once, as a failed post, by the second pass.
    if (typeof parts === "string") continue;
    const { data } = parts;
    const postCategories = list(data.categories ?? data.category);
    if (postCategories.length === 0) categories.set(UNCATEGORIZED.slug, UNCATEGORIZED.name);
    for (const name of postCategories) categories.set(slugify(name), name);
    for (const name of list(data.tags)) tags.set(slugify(name), name);
    for (const name of list(data.authors ?? data.author)) authors.set(slugify(name), name);
    const cover = coverOf(data);
    if (isHttpUrl(cover)) covers.add(cover);
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
  for (const file of files) {
    const parts = await readMarkdown(file);
    const sourceId = path.relative(folder, file);
    if (typeof parts === "string") {
      yield { kind: "post", sourceId, label: sourceId, rejected: parts };
      continue;
    }
    const { data, content } = parts;
    const title = typeof data.title === "string" ? data.title : path.basename(file).replace(MARKDOWN, "");
    const draft = data.draft === true || data.published === false;
    const date = dateOf(data);
    const description = firstOf(data, ["description", "summary", "excerpt"]);
    const postCategories = list(data.categories ?? data.category);
    yield {
      kind: "post",
      sourceId,
      slug: slugOf(data, file),
      title,
      status: draft ? "draft" : "published",
      featured: data.featured === true,
      coverImage: coverOf(data),
      description: typeof description === "string" ? description : "",
      content: markdownToHtml(content),
      attribution: null,
      publishedAt: (date ?? new Date(0)).toISOString(),
      category: postCategories[0] ? slugify(postCategories[0]) : UNCATEGORIZED.slug,
      tags: list(data.tags).map(slugify),
      authors: list(data.authors ?? data.author).map(slugify),
      fields: {},
      revisions: [],
      ...(date ? { createdAt: date.toISOString(), updatedAt: date.toISOString() } : {}),
    };
  }
}
