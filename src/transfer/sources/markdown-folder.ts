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
import type { ImportedPost, ImportedTranslation, SourceRecord } from "../../content/import/import-records.ts";
import { markdownToHtml } from "../../content/posts/markdown.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
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
  const base = withoutLanguageSuffix(path.basename(file).replace(MARKDOWN, ""));
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

/** What the first pass keeps of a file: where it belongs and what its post shares (no body). */
interface FileFacts {
  file: string;
  sourceId: string;
  /** Canonical locale code, null when the file names none (the workspace's default), or why not. */
  language: string | null | { refused: string };
  /** Files of one key are translations of one post. */
  key: string;
  categories: string[];
  tags: string[];
  authors: string[];
  cover: string | null;
}

async function* records(folder: string, files: string[]): AsyncGenerator<SourceRecord> {
  const categories = new Map<string, string>();
  const tags = new Map<string, string>();
  const authors = new Map<string, string>();
  const covers = new Set<string>();
  const posts = files.filter((file) => !isSectionPage(file));
  const folders = languageFolders(posts.map((file) => path.relative(folder, file)));
  const facts: FileFacts[] = [];
  for (const file of posts) {
    const parts = await readMarkdown(file);
    // A refused file brings no taxonomy: it is reported once, as a failed post, by the second pass.
    if (typeof parts === "string") continue;
    facts.push(factsOf(folder, file, parts.data, folders));
  }
  const groups = translationGroups(facts, await siteLanguageOf(folder));
  for (const group of groups) {
    const shared = group.representative;
    if (shared.categories.length === 0) categories.set(UNCATEGORIZED.slug, UNCATEGORIZED.name);
    for (const name of shared.categories) categories.set(slugify(name), name);
    for (const name of shared.tags) tags.set(slugify(name), name);
    for (const name of shared.authors) authors.set(slugify(name), name);
    if (isHttpUrl(shared.cover)) covers.add(shared.cover);
  }
  for (const file of files.filter(isSectionPage)) {
    const sourceId = path.relative(folder, file);
    yield { kind: "post", sourceId, label: sourceId, leftOut: "Hugo section pages (_index.md)" };
  }
  // The languages the files are in: a locale the workspace lacks is created (import-locales.ts).
  const languages = new Set(
    facts.flatMap(({ language }) => (typeof language === "string" ? [language] : [])),
  );
  for (const code of [...languages].sort()) yield { kind: "locale", sourceId: code, code };
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
  const grouped = new Map(groups.map((group) => [group.representative.file, group]));
  const inGroups = new Set(groups.flatMap((group) => group.members.map((member) => member.file)));
  for (const file of posts) {
    const sourceId = path.relative(folder, file);
    const group = grouped.get(file);
    if (!group) {
      // A file the first pass refused (its front matter), or a translation, written with its post.
      if (inGroups.has(file)) continue;
      const parts = await readMarkdown(file);
      yield {
        kind: "post",
        sourceId,
        label: sourceId,
        rejected: typeof parts === "string" ? parts : "its front matter could not be read",
      };
      continue;
    }
    const versions: ImportedPost[] = [];
    for (const member of group.members) {
      if (member.language !== null && typeof member.language === "object") {
        yield {
          kind: "post",
          sourceId: member.sourceId,
          label: member.sourceId,
          rejected: member.language.refused,
        };
        continue;
      }
      const post = await postOf(member);
      if (typeof post === "string") {
        yield { kind: "post", sourceId: member.sourceId, label: member.sourceId, rejected: post };
        continue;
      }
      if (member === group.representative && member.cover && !isHttpUrl(member.cover))
        yield {
          kind: "media",
          sourceId: `${member.sourceId}#cover`,
          label: `${member.sourceId}: ${member.cover}`,
          leftOut: "markdown covers with a relative path (not imported)",
        };
      versions.push(post);
    }
    const [own, ...others] = versions;
    if (!own) continue;
    yield others.length === 0 ? own : { ...own, translations: others.map(translationOf) };
  }
}

/** The post a file holds, in its own language (`locale`, when it names one), or why it has none. */
async function postOf(facts: FileFacts): Promise<ImportedPost | string> {
  const { file, sourceId } = facts;
  const parts = await readMarkdown(file);
  if (typeof parts === "string") return parts;
  const { data, content } = parts;
  const date = dateOf(data, file);
  if (!date) return NEEDS_A_DATE;
  const title =
    typeof data.title === "string"
      ? data.title
      : withoutLanguageSuffix(path.basename(file).replace(MARKDOWN, ""));
  const draft = data.draft === true || data.published === false;
  const description = firstOf(data, ["description", "summary", "excerpt"]);
  const cover = facts.cover;
  return {
    kind: "post",
    sourceId,
    ...(typeof facts.language === "string" ? { locale: facts.language } : {}),
    slug: slugOf(data, file),
    title,
    status: draft ? "draft" : "published",
    featured: data.featured === true,
    coverImage: isHttpUrl(cover) ? cover : null,
    description: typeof description === "string" ? description : "",
    content: markdownToHtml(withoutMdxStatements(file, content)),
    attribution: null,
    publishedAt: date.toISOString(),
    category: facts.categories[0] ? slugify(facts.categories[0]) : UNCATEGORIZED.slug,
    tags: facts.tags.map(slugify),
    authors: facts.authors.map(slugify),
    fields: {},
    revisions: [],
    createdAt: date.toISOString(),
    updatedAt: date.toISOString(),
  };
}

function translationOf(post: ImportedPost): ImportedTranslation {
  return {
    locale: post.locale ?? "",
    slug: post.slug,
    title: post.title,
    description: post.description,
    content: post.content,
    status: post.status,
    publishedAt: post.publishedAt,
    ...(post.createdAt ? { createdAt: post.createdAt } : {}),
    ...(post.updatedAt ? { updatedAt: post.updatedAt } : {}),
  };
}

// Hugo's multilingual trees (https://gohugo.io/content-management/multilingual/): a file's language is
// its front matter's `lang` (or `locale`), else its name's suffix (`post.fr.md`, `index.de.md`), else
// its language folder (`content/fr/posts/post.md`: every top-level folder of the tree, under an
// optional `content/`, is named for a language). A file that names none is in the workspace's default
// locale. Translations of one post share a `translationKey`, or else their path once the language is
// taken out of it (`content/en/posts/a.md` ↔ `content/fr/posts/a.md`, `a.md` ↔ `a.fr.md`).

/** A Hugo language key: `en`, `fr`, `pt-br`, `zh-hans`; a folder or suffix of another shape is not one. */
const LANGUAGE_SHAPE = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i;
const LANGUAGE_NAMES = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

/** The canonical code a folder or suffix names, if it is a language ICU knows (`posts`, `dev`: none). */
function languageCode(value: string): string | null {
  if (!LANGUAGE_SHAPE.test(value)) return null;
  const code = canonicalLocaleCode(value);
  if (!code) return null;
  try {
    return LANGUAGE_NAMES.of(code.split("-")[0] ?? code) ? code : null;
  } catch {
    return null;
  }
}

/** Hugo's site configuration files, at the tree's root or above its `content/` folder. */
const HUGO_CONFIGS = [
  "hugo.toml",
  "hugo.yaml",
  "hugo.yml",
  "hugo.json",
  "config.toml",
  "config.yaml",
  "config.yml",
  "config.json",
];
const DEFAULT_CONTENT_LANGUAGE = /["']?defaultContentLanguage["']?\s*[=:]\s*["']?([A-Za-z0-9-]+)/;

/**
 * The site's default language: its Hugo configuration's defaultContentLanguage (found by a pattern,
 * the file is never run or parsed as anything but text), else Hugo's own default, `en`.
 */
async function siteLanguageOf(folder: string): Promise<string> {
  const dirs = path.basename(folder) === "content" ? [folder, path.dirname(folder)] : [folder];
  for (const dir of dirs)
    for (const name of HUGO_CONFIGS) {
      const text = await readFile(path.join(dir, name), "utf8").catch(() => null);
      const named = text ? DEFAULT_CONTENT_LANGUAGE.exec(text)?.[1] : undefined;
      const code = named ? canonicalLocaleCode(named) : null;
      if (code) return code;
    }
  return "en";
}

/** A relative path without a leading `content/`, as segments. */
const segmentsOf = (relative: string) => {
  const segments = relative.split(path.sep);
  return segments[0] === "content" && segments.length > 1 ? segments.slice(1) : segments;
};

/**
 * Whether the tree is laid out by language folders: every top-level folder that holds markdown (under
 * an optional `content/`) is named for a language. One folder of another name (`posts`) and it is not.
 */
function languageFolders(relatives: string[]): boolean {
  const tops = new Set(
    relatives.map(segmentsOf).flatMap((segments) => (segments.length > 1 ? [segments[0] as string] : [])),
  );
  return tops.size > 0 && [...tops].every((top) => languageCode(top) !== null);
}

/** `post.fr` → `post`; a name without a language suffix as it is. */
function withoutLanguageSuffix(base: string): string {
  const dot = base.lastIndexOf(".");
  return dot > 0 && languageCode(base.slice(dot + 1)) ? base.slice(0, dot) : base;
}

function factsOf(folder: string, file: string, data: FrontMatter, folders: boolean): FileFacts {
  const sourceId = path.relative(folder, file);
  const segments = segmentsOf(sourceId);
  const folderLanguage = folders && segments.length > 1 ? languageCode(segments[0] as string) : null;
  const base = path.basename(file).replace(MARKDOWN, "");
  const dot = base.lastIndexOf(".");
  const suffixLanguage = dot > 0 ? languageCode(base.slice(dot + 1)) : null;
  const named = firstOf(data, ["lang", "locale"]);
  let language: FileFacts["language"] = suffixLanguage ?? folderLanguage;
  if (named !== undefined) {
    const code = typeof named === "string" ? canonicalLocaleCode(named) : null;
    language = code ?? { refused: `its front matter's lang: ${localeCodeProblem(String(named))}` };
  }
  const inTree = (folderLanguage ? segments.slice(1) : segments).join("/");
  const withoutSuffix = path.posix.join(path.posix.dirname(inTree), withoutLanguageSuffix(base));
  const translationKey = data.translationKey;
  return {
    file,
    sourceId,
    language,
    key:
      typeof translationKey === "string" || typeof translationKey === "number"
        ? `key:${translationKey}`
        : `path:${withoutSuffix}`,
    categories: categoriesOf(data),
    tags: tagsOf(data),
    authors: list(data.authors ?? data.author),
    cover: coverOf(data),
  };
}

interface TranslationGroup {
  /** Whose fields the post shares (category, tags, authors, cover) and whose path is its source id. */
  representative: FileFacts;
  /** The representative first, then the others in path order. */
  members: FileFacts[];
}

/**
 * The files as posts: in a tree without languages, each file its own; else the files of one key
 * together, the one without a language first, else the one in the site's default language (Hugo's
 * defaultContentLanguage), else the first by path. A second file
 * in a language the group has already is a post of its own (the import reports what it collides with).
 */
function translationGroups(facts: FileFacts[], siteLanguage: string): TranslationGroup[] {
  const multilingual = facts.some((fact) => fact.language !== null);
  if (!multilingual) return facts.map((fact) => ({ representative: fact, members: [fact] }));
  const byKey = new Map<string, FileFacts[][]>();
  for (const fact of facts) {
    const groups = byKey.get(fact.key) ?? [];
    byKey.set(fact.key, groups);
    const languageOf = (other: FileFacts) =>
      typeof other.language === "object" ? other.file : (other.language ?? "");
    const room = groups.find((group) => !group.some((other) => languageOf(other) === languageOf(fact)));
    if (room) room.push(fact);
    else groups.push([fact]);
  }
  const groups = [...byKey.values()].flat().map((members) => {
    const representative =
      members.find((member) => member.language === null) ??
      members.find((member) => member.language === siteLanguage) ??
      (members[0] as FileFacts);
    return {
      representative,
      members: [representative, ...members.filter((member) => member !== representative)],
    };
  });
  const order = new Map(facts.map((fact, index) => [fact.file, index]));
  return groups.sort(
    (a, b) => (order.get(a.representative.file) ?? 0) - (order.get(b.representative.file) ?? 0),
  );
}
