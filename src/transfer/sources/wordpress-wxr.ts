// A WordPress export (Tools → Export: WXR, an RSS document with the `wp:` namespace) as import records.
// Carried over: authors (wp:author: login as slug, display name, e-mail; an export without those blocks,
// as WXR 1.0 and WordPress.com files are, names authors only in dc:creator: each one becomes an author),
// categories and tags with their descriptions (wp:category, wp:tag and those named on the items; a
// category's parent is not kept: categories are flat here), posts (wp:post_type "post") with their HTML
// (content:encoded; a body without block markup gets the paragraphs WordPress adds when it renders it,
// paragraphs.ts), excerpt, slug (wp:post_name, else the title), author (dc:creator), categories (the
// first is the post's category; none: "uncategorized") and tags, status (publish; future is scheduled:
// published with its future date; draft, pending and private are drafts), the GMT dates, the featured
// image (_thumbnail_id → the attachment's URL); attachments (wp:post_type "attachment") are imported as
// media from wp:attachment_url. Titles and names are text: WordPress stores them escaped, sometimes with
// markup (html-text.ts). An empty post is imported empty. Left out, and counted in the summary: pages,
// menu items, comments, other post types, posts in the trash. Not carried over: post meta other than
// the thumbnail, shortcodes (kept as text).
import { readFile, stat } from "node:fs/promises";
import { parse, validate } from "fast-xml-parser";
import type { SourceRecord } from "../../content/import/import-records.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { plainText } from "./html-text.ts";
import { addParagraphs, hasBlockMarkup } from "./paragraphs.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource } from "./source-types.ts";
import { wxrDates } from "./wxr-dates.ts";

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
  // The site, not the file, names the import: the same site exported again, under any file name, is
  // the same import (its records skipped or updated, never conflicts with themselves).
  const site = text(channel["wp:base_blog_url"]) || text(channel["wp:base_site_url"]) || text(channel.link);
  // A post with no date at all is dated when the file was exported (wxr-dates.ts): the channel's
  // pubDate, which WordPress writes in every export, else the file's modification time.
  const exported = Date.parse(text(channel.pubDate));
  const exportedAt = new Date(Number.isNaN(exported) ? (await stat(file)).mtimeMs : exported);
  return {
    origin: `wxr:${site.replace(/\/+$/, "") || file}`,
    records: records(channel, exportedAt),
    total: null,
  };
}

/** Items of other types than posts and attachments, as the summary counts what was left out. */
const LEFT_OUT_TYPES: Record<string, string> = {
  page: "WordPress pages",
  nav_menu_item: "WordPress menu items",
};

const leftOutName = (type: string) => LEFT_OUT_TYPES[type] ?? `WordPress "${type}" items`;

async function* records(channel: Node, exportedAt: Date): AsyncGenerator<SourceRecord> {
  const items = list(channel.item);
  const categories = new Map<string, { name: string; description: string | null }>();
  const tags = new Map<string, { name: string; description: string | null }>();
  const described = (value: unknown) => plainText(text(value)) || null;
  for (const category of list(channel["wp:category"]))
    categories.set(slugify(text(category["wp:category_nicename"])), {
      name: plainText(text(category["wp:cat_name"])),
      description: described(category["wp:category_description"]),
    });
  for (const tag of list(channel["wp:tag"]))
    tags.set(slugify(text(tag["wp:tag_slug"])), {
      name: plainText(text(tag["wp:tag_name"])),
      description: described(tag["wp:tag_description"]),
    });
  const typeOf = (item: Node) => text(item["wp:post_type"]);
  const inTrash = (item: Node) => text(item["wp:status"]) === "trash";
  const posts = items.filter((item) => typeOf(item) === "post" && !inTrash(item));
  for (const post of posts)
    for (const term of list(post.category)) {
      const target =
        term["@_domain"] === "post_tag" ? tags : term["@_domain"] === "category" ? categories : null;
      const slug = slugify(text(term["@_nicename"]) || text(term));
      if (target && !target.has(slug)) target.set(slug, { name: plainText(text(term)), description: null });
    }
  if (posts.some((post) => !list(post.category).some((term) => term["@_domain"] === "category")))
    categories.set(
      UNCATEGORIZED,
      categories.get(UNCATEGORIZED) ?? { name: "Uncategorized", description: null },
    );

  for (const [slug, { name, description }] of categories)
    yield { kind: "category", sourceId: slug, slug, name, description };
  for (const [slug, { name, description }] of tags)
    yield { kind: "tag", sourceId: slug, slug, name, description };
  yield* authors(channel, posts);
  const attachments = new Map<string, string>();
  for (const item of items.filter((entry) => typeOf(entry) === "attachment")) {
    const url = text(item["wp:attachment_url"]);
    if (!isHttpUrl(url)) {
      yield leftOut(item, "WordPress attachments without a URL");
      continue;
    }
    attachments.set(text(item["wp:post_id"]), url);
    yield mediaAtUrl(url, plainText(text(item.title)) || null);
  }
  for (const item of items) {
    const type = typeOf(item);
    if (type === "attachment") continue;
    if (type !== "post") yield leftOut(item, leftOutName(type));
    else if (inTrash(item)) yield leftOut(item, "WordPress posts in the trash");
    for (const comment of list(item["wp:comment"]))
      yield {
        kind: "post",
        sourceId: `comment:${text(comment["wp:comment_id"])}`,
        label: `comment ${text(comment["wp:comment_id"])}`,
        leftOut: "WordPress comments",
      };
  }
  const dates = wxrDates(posts, text, exportedAt);
  for (const post of posts) {
    const status = text(post["wp:status"]);
    const date = dates.dateOf(post);
    const thumbnail = list(post["wp:postmeta"]).find((meta) => text(meta["wp:meta_key"]) === "_thumbnail_id");
    const terms = list(post.category);
    const termSlugs = (domain: string) =>
      terms
        .filter((term) => term["@_domain"] === domain)
        .map((term) => slugify(text(term["@_nicename"]) || text(term)));
    const title = plainText(text(post.title));
    const content = text(post["content:encoded"]);
    yield {
      kind: "post",
      sourceId: text(post["wp:post_id"]) || text(post.guid),
      slug: slugify(text(post["wp:post_name"]) || title),
      title: title || "Untitled",
      status: status === "publish" || status === "future" ? "published" : "draft",
      featured: text(post["wp:is_sticky"]) === "1",
      coverImage: thumbnail ? (attachments.get(text(thumbnail["wp:meta_value"])) ?? null) : null,
      description: text(post["excerpt:encoded"]),
      content: hasBlockMarkup(content) ? content : addParagraphs(content),
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

/**
 * The file's authors (wp:author), and an author for each dc:creator of a post that none of them is:
 * WXR 1.0 and WordPress.com exports have no wp:author at all, and their posts would otherwise name an
 * author the workspace does not have.
 */
function* authors(channel: Node, posts: Node[]): Generator<SourceRecord> {
  const slugs = new Set<string>();
  for (const author of list(channel["wp:author"])) {
    const login = text(author["wp:author_login"]);
    slugs.add(slugify(login));
    yield {
      kind: "author",
      sourceId: login,
      slug: slugify(login),
      name: plainText(text(author["wp:author_display_name"])) || login,
      image: null,
      bio: null,
      role: null,
      email: text(author["wp:author_email"]) || null,
      socials: [],
    };
  }
  for (const post of posts) {
    const creator = text(post["dc:creator"]);
    const slug = slugify(creator);
    if (!creator || slugs.has(slug)) continue;
    slugs.add(slug);
    yield {
      kind: "author",
      sourceId: creator,
      slug,
      name: plainText(creator) || creator,
      image: null,
      bio: null,
      role: null,
      email: null,
      socials: [],
    };
  }
}

function leftOut(item: Node, what: string): SourceRecord {
  const id = text(item["wp:post_id"]) || text(item.guid);
  return { kind: "post", sourceId: `item:${id}`, label: plainText(text(item.title)) || id, leftOut: what };
}
