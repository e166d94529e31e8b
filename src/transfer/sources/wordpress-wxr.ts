// A WordPress export (Tools → Export: WXR, an RSS document with the `wp:` namespace) as import records.
// Carried over: authors (wp:author: login as slug, display name, e-mail), categories and tags
// (wp:category, wp:tag and those named on the items), posts (wp:post_type "post") with their HTML
// (content:encoded), excerpt, slug (wp:post_name, else the title), author (dc:creator), categories (the
// first is the post's category; none: "uncategorized") and tags, status (publish; future is scheduled:
// published with its future date; draft, pending and private are drafts), the GMT dates, the featured
// image (_thumbnail_id → the attachment's URL); attachments (wp:post_type "attachment") are imported as
// media from wp:attachment_url. Not carried over: pages, comments, menus, custom post types, post meta
// other than the thumbnail, shortcodes (kept as text).
import { readFile } from "node:fs/promises";
import { parse, validate } from "fast-xml-parser";
import type { ImportRecord } from "../../content/import/import-records.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource } from "./source-types.ts";

type Node = Record<string, unknown>;

const UNCATEGORIZED = "uncategorized";

const list = <T = Node>(value: unknown): T[] =>
  (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]) as T[];
const text = (value: unknown): string =>
  value === undefined || value === null
    ? ""
    : typeof value === "object"
      ? String((value as Node)["#text"] ?? "")
      : String(value);

/** A WXR date ("2024-03-01 10:00:00", GMT), or null for WordPress's "0000-00-00 00:00:00". */
function gmtDate(value: unknown): string | null {
  const raw = text(value);
  if (!raw || raw.startsWith("0000")) return null;
  const date = new Date(`${raw.replace(" ", "T")}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export async function openWordPressExport(file: string): Promise<ImportSource> {
  const xml = await readFile(file, "utf8").catch(() => {
    throw new ImportSourceError(`${file} cannot be read`);
  });
  // A malformed or cut file (a transfer stopped after an `</item>`) is refused whole: the parser alone
  // would import the part it understood, or nothing, and say nothing.
  const valid = validate(xml);
  if (valid !== true)
    throw new ImportSourceError(
      `${file} is not well-formed XML (line ${valid.err.line}, column ${valid.err.col}): ${valid.err.msg.replace(/\s+/g, " ")}`,
    );
  // Values stay strings (a slug "2024" is not a number); CDATA is merged into the text.
  let document: { rss?: { channel?: Node } };
  try {
    document = parse(xml, { ignoreAttributes: false, attributeNamePrefix: "@_", parseNodeValue: false });
  } catch (error) {
    // The parser builds its tree recursively: elements nested by the hundred thousand exhaust the stack.
    if (error instanceof RangeError)
      throw new ImportSourceError(`${file} is nested too deeply to be a WordPress WXR export`);
    throw error;
  }
  const channel = document?.rss?.channel;
  if (!channel) throw new ImportSourceError(`${file} is not a WordPress WXR export: no rss/channel`);
  return { origin: `wxr:${file}`, records: records(channel), total: null };
}

async function* records(channel: Node): AsyncGenerator<ImportRecord> {
  const items = list(channel.item);
  const categories = new Map<string, string>();
  const tags = new Map<string, string>();
  for (const category of list(channel["wp:category"]))
    categories.set(slugify(text(category["wp:category_nicename"])), text(category["wp:cat_name"]));
  for (const tag of list(channel["wp:tag"]))
    tags.set(slugify(text(tag["wp:tag_slug"])), text(tag["wp:tag_name"]));
  const posts = items.filter((item) => text(item["wp:post_type"]) === "post");
  for (const post of posts)
    for (const term of list(post.category)) {
      const target =
        term["@_domain"] === "post_tag" ? tags : term["@_domain"] === "category" ? categories : null;
      const slug = slugify(text(term["@_nicename"]) || text(term));
      if (target && !target.has(slug)) target.set(slug, text(term));
    }
  if (posts.some((post) => !list(post.category).some((term) => term["@_domain"] === "category")))
    categories.set(UNCATEGORIZED, categories.get(UNCATEGORIZED) ?? "Uncategorized");

  for (const [slug, name] of categories)
    yield { kind: "category", sourceId: slug, slug, name, description: null };
  for (const [slug, name] of tags) yield { kind: "tag", sourceId: slug, slug, name, description: null };
  for (const author of list(channel["wp:author"])) {
    const login = text(author["wp:author_login"]);
    yield {
      kind: "author",
      sourceId: login,
      slug: slugify(login),
      name: text(author["wp:author_display_name"]) || login,
      image: null,
      bio: null,
      role: null,
      email: text(author["wp:author_email"]) || null,
      socials: [],
    };
  }
  const attachments = new Map<string, string>();
  for (const item of items.filter((entry) => text(entry["wp:post_type"]) === "attachment")) {
    const url = text(item["wp:attachment_url"]);
    if (!isHttpUrl(url)) continue;
    attachments.set(text(item["wp:post_id"]), url);
    yield mediaAtUrl(url, text(item.title) || null);
  }
  for (const post of posts) {
    const status = text(post["wp:status"]);
    const date =
      gmtDate(post["wp:post_date_gmt"]) ?? gmtDate(post["wp:post_date"]) ?? new Date(0).toISOString();
    const thumbnail = list(post["wp:postmeta"]).find((meta) => text(meta["wp:meta_key"]) === "_thumbnail_id");
    const terms = list(post.category);
    const termSlugs = (domain: string) =>
      terms
        .filter((term) => term["@_domain"] === domain)
        .map((term) => slugify(text(term["@_nicename"]) || text(term)));
    const title = text(post.title);
    yield {
      kind: "post",
      sourceId: text(post["wp:post_id"]) || text(post.guid),
      slug: slugify(text(post["wp:post_name"]) || title),
      title: title || "Untitled",
      status: status === "publish" || status === "future" ? "published" : "draft",
      featured: text(post["wp:is_sticky"]) === "1",
      coverImage: thumbnail ? (attachments.get(text(thumbnail["wp:meta_value"])) ?? null) : null,
      description: text(post["excerpt:encoded"]),
      content: text(post["content:encoded"]),
      attribution: null,
      publishedAt: date,
      category: termSlugs("category")[0] ?? UNCATEGORIZED,
      tags: termSlugs("post_tag"),
      authors: text(post["dc:creator"]) ? [slugify(text(post["dc:creator"]))] : [],
      fields: {},
      revisions: [],
    };
  }
}
