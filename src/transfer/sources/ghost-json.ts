// A Ghost JSON export (Settings → Labs → Export) as import records, from Ghost 0.x to 5.x: the data is
// at `db[0].data` (`{ db: [{ meta, data }] }`), or at `data` in 0.x files (`{ meta, data }`); 0.x ids are
// integers, its dates epoch milliseconds, and its posts say `page` rather than `type` and `image` rather
// than `feature_image`; 0.x and 1.x name a post's author in `author_id` rather than `posts_authors`.
// Carried over: posts (type "post") with their HTML (else their markdown, rendered), title, slug,
// custom excerpt, feature image (an absolute URL is imported as media), featured flag, status
// (published, draft; scheduled stays published with its future date) and dates (UTC; older exports
// write them without a zone, "2014-01-01 12:00:00", and the host's zone must not move them); tags
// (internal `#` tags left out) in their order; users as authors, in their order; the author's bio and
// profile image. Ghost has no categories: every post goes to "uncategorized". Pages are left out,
// counted in the summary. Not carried over: members, newsletters, settings, code injection,
// mobiledoc/lexical sources (the HTML is), relative `__GHOST_URL__` and `/content/images` images (they
// name no host to fetch from).
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { ImportKind, SourceRecord } from "../../content/import/import-records.ts";
import { markdownToHtml } from "../../content/posts/markdown.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource } from "./source-types.ts";

// A Ghost file is input from anywhere: each record is checked against what is read of it, and one of
// the wrong shape (a title that is a number, a date that is not one) is a failed record with its
// reason, not a TypeError that ends the import.

/** An id: a string (1.0 on: ObjectIds) or an integer (0.x), always compared as text. */
const id = z.union([z.string().min(1), z.number().int()]).transform(String);

/** A date without a zone ("2014-01-01 12:00:00", "2014-01-01T12:00:00.000"): Ghost stored it in UTC. */
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A Ghost date's epoch milliseconds (NaN if none): 0.x's number, or a string, UTC when it names no zone. */
function timeOf(value: string | number): number {
  if (typeof value === "number") return value;
  return Date.parse(ZONELESS.test(value) ? `${value.replace(" ", "T")}Z` : value);
}

const date = z
  .union([z.string(), z.number()])
  .refine((value) => Number.isFinite(timeOf(value)), "Must be a date")
  .transform((value) => new Date(timeOf(value)).toISOString())
  .nullish();
const text = z.string().nullish();
const flag = z.union([z.boolean(), z.number(), z.string()]).optional();
const isSet = (value: boolean | number | string | undefined) =>
  value === true || value === 1 || value === "1" || value === "true";
const uuid = z.string().min(1).nullish();
const ghostPost = z.object({
  id,
  uuid,
  title: z.string(),
  slug: z.string(),
  html: text,
  markdown: text,
  feature_image: text,
  image: text,
  featured: flag,
  status: z.string(),
  type: z.string().optional(),
  page: flag,
  custom_excerpt: text,
  author_id: id.nullish(),
  published_at: date,
  created_at: date,
  updated_at: date,
});
const ghostTag = z.object({ id, uuid, name: z.string(), slug: z.string(), description: text });
const ghostUser = z.object({
  id,
  uuid,
  name: z.string(),
  slug: z.string(),
  email: text,
  bio: text,
  profile_image: text,
  image: text,
  website: text,
  created_at: date,
  updated_at: date,
});
const link = { post_id: id, sort_order: z.number().optional() };
const ghostPostTag = z.object({ ...link, tag_id: id });
const ghostPostAuthor = z.object({ ...link, author_id: id });

type GhostLink = { post_id: string; sort_order?: number | undefined };
interface GhostData {
  posts: unknown[];
  tags?: unknown;
  users?: unknown;
  posts_tags?: unknown;
  posts_authors?: unknown;
}

/** The entries of `value` (a list, else none) that have `schema`'s shape; the others go to `rejected`. */
function entries<T>(
  value: unknown,
  schema: z.ZodType<T>,
  rejected?: (entry: unknown, reason: string) => void,
) {
  const valid: T[] = [];
  for (const entry of Array.isArray(value) ? value : []) {
    const parsed = schema.safeParse(entry);
    if (parsed.success) valid.push(parsed.data);
    else rejected?.(entry, reasonOf(parsed.error));
  }
  return valid;
}

function reasonOf(error: z.ZodError): string {
  const [issue] = error.issues;
  return issue ? `${issue.path.join(".") || "the record"}: ${issue.message}` : error.message;
}

/** How a rejected entry is named: its slug, else its id, else its place. */
function nameOf(entry: unknown, fallback: string): string {
  const record = (entry ?? {}) as { slug?: unknown; id?: unknown };
  if (typeof record.slug === "string" && record.slug) return record.slug;
  if ((typeof record.id === "string" && record.id) || typeof record.id === "number") return String(record.id);
  return fallback;
}

const UNCATEGORIZED = "uncategorized";

export async function openGhostExport(file: string): Promise<ImportSource> {
  let parsed: { db?: { meta?: unknown; data?: GhostData }[]; data?: GhostData } | null;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ImportSourceError(`${file} is not a Ghost JSON export: ${(error as Error).message}`);
  }
  const data = ghostData(parsed);
  if (!data || !Array.isArray(data.posts))
    throw new ImportSourceError(
      `${file} is not a Ghost JSON export: no db[0].data.posts (nor 0.x's data.posts)`,
    );
  // Ghost's records name themselves (uuids, ObjectIds): the same site exported again, under any file
  // name, is the same import. Integer ids without a uuid (early 0.x) are only unique in their file.
  return { origin: "ghost", records: records(data, `${file}#`), total: null };
}

/** Where the export keeps its tables: `db[0].data` from Ghost 1.0 on, `data` in 0.x files. */
export function ghostData(parsed: unknown): GhostData | undefined {
  const document = parsed as { db?: { data?: GhostData }[]; data?: GhostData } | null;
  if (Array.isArray(document?.db)) return document.db[0]?.data;
  return document?.data;
}

const byOrder = <T extends GhostLink>(a: T, b: T) => (a.sort_order ?? 0) - (b.sort_order ?? 0);

const isPage = (post: { type?: string | undefined; page?: boolean | number | string | undefined }) =>
  post.type !== undefined ? post.type !== "post" : isSet(post.page);

/**
 * A record's identity in the ledger: its uuid; else a user's e-mail (Ghost 1.0 on gives users no uuid,
 * and every site's owner has the id "1"); else its id when that is an ObjectId (1.0 on: unique across
 * sites); else its id within its file (`fileScope`: 0.x integer ids repeat across sites).
 */
function identity(
  record: { id: string; uuid?: string | null | undefined; email?: string | null | undefined },
  fileScope: string,
): string {
  if (record.uuid) return record.uuid;
  if (record.email) return `email:${record.email.toLowerCase()}`;
  return /^[0-9a-f]{24}$/.test(record.id) ? record.id : `${fileScope}${record.id}`;
}

async function* records(data: GhostData, fileScope: string): AsyncGenerator<SourceRecord> {
  const rejected: SourceRecord[] = [];
  const reject = (kind: ImportKind) => (entry: unknown, reason: string) => {
    const name = nameOf(entry, `${kind} #${rejected.length + 1}`);
    rejected.push({ kind, sourceId: name, label: name, rejected: reason });
  };
  const entriesOfPosts = entries(data.posts, ghostPost, reject("post"));
  const posts = entriesOfPosts.filter((post) => !isPage(post));
  const tags = new Map(
    entries(data.tags, ghostTag, reject("tag"))
      .filter((tag) => !tag.name.startsWith("#"))
      .map((tag) => [tag.id, tag]),
  );
  const users = new Map(entries(data.users, ghostUser, reject("author")).map((user) => [user.id, user]));
  const postTags = entries(data.posts_tags, ghostPostTag);
  const postAuthors = entries(data.posts_authors, ghostPostAuthor);
  // Each refused entry is a failed record of the summary, named by its slug or id.
  yield* rejected;
  for (const page of entriesOfPosts.filter(isPage))
    yield { kind: "post", sourceId: identity(page, fileScope), label: page.slug, leftOut: "Ghost pages" };
  yield {
    kind: "category",
    sourceId: UNCATEGORIZED,
    slug: UNCATEGORIZED,
    name: "Uncategorized",
    description: null,
  };
  for (const tag of tags.values())
    yield {
      kind: "tag",
      sourceId: identity(tag, fileScope),
      slug: slugify(tag.slug),
      name: tag.name,
      description: tag.description ?? null,
    };
  const coverOf = (post: (typeof posts)[number]) => post.feature_image ?? post.image ?? null;
  const imageOf = (user: z.infer<typeof ghostUser>) => user.profile_image ?? user.image ?? null;
  // Media before the authors and posts that show them: each one's URL is rewritten to the imported file.
  const images = new Set([...posts.map(coverOf), ...[...users.values()].map(imageOf)]);
  for (const url of images) if (isHttpUrl(url)) yield mediaAtUrl(url);
  for (const user of users.values()) {
    yield {
      kind: "author",
      sourceId: identity(user, fileScope),
      slug: slugify(user.slug),
      name: user.name,
      image: imageOf(user),
      bio: user.bio ?? null,
      role: null,
      email: user.email ?? null,
      socials: user.website ? [{ platform: "website", url: user.website }] : [],
      ...(user.created_at ? { createdAt: user.created_at } : {}),
      ...(user.updated_at ? { updatedAt: user.updated_at } : {}),
    };
  }
  for (const post of posts) {
    const date = post.published_at ?? post.created_at;
    if (!date) {
      yield {
        kind: "post",
        sourceId: identity(post, fileScope),
        label: post.slug,
        rejected: "it has no date (published_at nor created_at)",
      };
      continue;
    }
    const tagsOf = postTags.filter((link) => link.post_id === post.id).sort(byOrder);
    const linked = postAuthors.filter((link) => link.post_id === post.id).sort(byOrder);
    // 0.x and 1.x exports name one author on the post itself.
    const authorIds =
      linked.length > 0 ? linked.map((link) => link.author_id) : post.author_id ? [post.author_id] : [];
    const published = post.status === "published" || post.status === "scheduled";
    yield {
      kind: "post",
      sourceId: identity(post, fileScope),
      slug: slugify(post.slug),
      title: post.title,
      status: published ? "published" : "draft",
      featured: isSet(post.featured),
      coverImage: coverOf(post),
      description: post.custom_excerpt ?? "",
      content: post.html ?? (post.markdown ? markdownToHtml(post.markdown) : ""),
      attribution: null,
      publishedAt: date,
      category: UNCATEGORIZED,
      tags: tagsOf.flatMap((link) => {
        const tag = tags.get(link.tag_id);
        return tag ? [slugify(tag.slug)] : [];
      }),
      authors: authorIds.flatMap((authorId) => {
        const user = users.get(authorId);
        return user ? [slugify(user.slug)] : [];
      }),
      fields: {},
      revisions: [],
      ...(post.created_at ? { createdAt: post.created_at } : {}),
      ...(post.updated_at ? { updatedAt: post.updated_at } : {}),
    };
  }
}
