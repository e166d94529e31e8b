// A Ghost JSON export (Settings → Labs → Export: `{ db: [{ meta, data: { posts, tags, users,
// posts_tags, posts_authors } }] }`) as import records. Carried over: posts (type "post"; pages are
// left out) with their HTML, title, slug, custom excerpt, feature image (an absolute URL is imported as
// media), featured flag, status (published, draft; scheduled stays published with its future date) and
// dates; tags (internal `#` tags left out) in their order; users as authors, in their order; the
// author's bio and profile image. Ghost has no categories: every post goes to "uncategorized".
// Not carried over: members, newsletters, settings, code injection, mobiledoc/lexical sources (the HTML
// is), relative `__GHOST_URL__` images (they name no host to fetch from).
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { ImportKind, SourceRecord } from "../../content/import/import-records.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource } from "./source-types.ts";

// A Ghost file is input from anywhere: each record is checked against what is read of it, and one of
// the wrong shape (a title that is a number, a date that is not one) is a failed record with its
// reason, not a TypeError that ends the import.
const date = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), "Must be a date")
  .nullish();
const text = z.string().nullish();
const ghostPost = z.object({
  id: z.string().min(1),
  title: z.string(),
  slug: z.string(),
  html: text,
  feature_image: text,
  featured: z.union([z.boolean(), z.number()]).optional(),
  status: z.string(),
  type: z.string().optional(),
  custom_excerpt: text,
  published_at: date,
  created_at: date,
  updated_at: date,
});
const ghostTag = z.object({ id: z.string().min(1), name: z.string(), slug: z.string(), description: text });
const ghostUser = z.object({
  id: z.string().min(1),
  name: z.string(),
  slug: z.string(),
  email: text,
  bio: text,
  profile_image: text,
  website: text,
  created_at: date,
  updated_at: date,
});
const link = { post_id: z.string(), sort_order: z.number().optional() };
const ghostPostTag = z.object({ ...link, tag_id: z.string() });
const ghostPostAuthor = z.object({ ...link, author_id: z.string() });

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
  if (typeof record.id === "string" && record.id) return record.id;
  return fallback;
}

const UNCATEGORIZED = "uncategorized";

export async function openGhostExport(file: string): Promise<ImportSource> {
  let parsed: { db?: { meta?: unknown; data?: GhostData }[] } | null;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ImportSourceError(`${file} is not a Ghost JSON export: ${(error as Error).message}`);
  }
  const data = Array.isArray(parsed?.db) ? parsed.db[0]?.data : undefined;
  if (!data || !Array.isArray(data.posts))
    throw new ImportSourceError(`${file} is not a Ghost JSON export: no db[0].data.posts`);
  return { origin: `ghost:${file}`, records: records(data), total: null };
}

const byOrder = <T extends GhostLink>(a: T, b: T) => (a.sort_order ?? 0) - (b.sort_order ?? 0);

const iso = (value: string) => new Date(value).toISOString();

async function* records(data: GhostData): AsyncGenerator<SourceRecord> {
  const rejected: SourceRecord[] = [];
  const reject = (kind: ImportKind) => (entry: unknown, reason: string) => {
    const name = nameOf(entry, `${kind} #${rejected.length + 1}`);
    rejected.push({ kind, sourceId: name, label: name, rejected: reason });
  };
  const posts = entries(data.posts, ghostPost, reject("post")).filter(
    (post) => (post.type ?? "post") === "post",
  );
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
      sourceId: tag.id,
      slug: slugify(tag.slug),
      name: tag.name,
      description: tag.description ?? null,
    };
  for (const user of users.values()) {
    yield {
      kind: "author",
      sourceId: user.id,
      slug: slugify(user.slug),
      name: user.name,
      image: user.profile_image ?? null,
      bio: user.bio ?? null,
      role: null,
      email: user.email ?? null,
      socials: user.website ? [{ platform: "website", url: user.website }] : [],
      ...(user.created_at ? { createdAt: iso(user.created_at) } : {}),
      ...(user.updated_at ? { updatedAt: iso(user.updated_at) } : {}),
    };
  }
  const images = new Set([
    ...posts.map((post) => post.feature_image),
    ...[...users.values()].map((u) => u.profile_image),
  ]);
  for (const url of images) if (isHttpUrl(url)) yield mediaAtUrl(url);
  for (const post of posts) {
    const tagsOf = postTags.filter((link) => link.post_id === post.id).sort(byOrder);
    const authorsOf = postAuthors.filter((link) => link.post_id === post.id).sort(byOrder);
    const published = post.status === "published" || post.status === "scheduled";
    const date = post.published_at ?? post.created_at ?? new Date(0).toISOString();
    yield {
      kind: "post",
      sourceId: post.id,
      slug: slugify(post.slug),
      title: post.title,
      status: published ? "published" : "draft",
      featured: post.featured === true || post.featured === 1,
      coverImage: post.feature_image ?? null,
      description: post.custom_excerpt ?? "",
      content: post.html ?? "",
      attribution: null,
      publishedAt: iso(date),
      category: UNCATEGORIZED,
      tags: tagsOf.flatMap((link) => {
        const tag = tags.get(link.tag_id);
        return tag ? [slugify(tag.slug)] : [];
      }),
      authors: authorsOf.flatMap((link) => {
        const user = users.get(link.author_id);
        return user ? [slugify(user.slug)] : [];
      }),
      fields: {},
      revisions: [],
      ...(post.created_at ? { createdAt: iso(post.created_at) } : {}),
      ...(post.updated_at ? { updatedAt: iso(post.updated_at) } : {}),
    };
  }
}
