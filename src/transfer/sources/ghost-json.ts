// A Ghost JSON export (Settings → Labs → Export: `{ db: [{ meta, data: { posts, tags, users,
// posts_tags, posts_authors } }] }`) as import records. Carried over: posts (type "post"; pages are
// left out) with their HTML, title, slug, custom excerpt, feature image (an absolute URL is imported as
// media), featured flag, status (published, draft; scheduled stays published with its future date) and
// dates; tags (internal `#` tags left out) in their order; users as authors, in their order; the
// author's bio and profile image. Ghost has no categories: every post goes to "uncategorized".
// Not carried over: members, newsletters, settings, code injection, mobiledoc/lexical sources (the HTML
// is), relative `__GHOST_URL__` images (they name no host to fetch from).
import { readFile } from "node:fs/promises";
import type { ImportRecord } from "../../content/import-records.ts";
import { slugify } from "../../content/slugs.ts";
import { ImportSourceError } from "../../domain/errors.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource } from "./source-types.ts";

interface GhostPost {
  id: string;
  title: string;
  slug: string;
  html: string | null;
  feature_image?: string | null;
  featured?: boolean | number;
  status: string;
  type?: string;
  custom_excerpt?: string | null;
  published_at?: string | null;
  created_at?: string;
  updated_at?: string;
}
interface GhostTag {
  id: string;
  name: string;
  slug: string;
  description?: string | null;
}
interface GhostUser {
  id: string;
  name: string;
  slug: string;
  email?: string | null;
  bio?: string | null;
  profile_image?: string | null;
  website?: string | null;
  created_at?: string;
  updated_at?: string;
}
interface GhostLink {
  post_id: string;
  sort_order?: number;
}
interface GhostData {
  posts?: GhostPost[];
  tags?: GhostTag[];
  users?: GhostUser[];
  posts_tags?: (GhostLink & { tag_id: string })[];
  posts_authors?: (GhostLink & { author_id: string })[];
}

const UNCATEGORIZED = "uncategorized";

export async function openGhostExport(file: string): Promise<ImportSource> {
  let parsed: { db?: { meta?: unknown; data?: GhostData }[] };
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ImportSourceError(`${file} is not a Ghost JSON export: ${(error as Error).message}`);
  }
  const data = parsed.db?.[0]?.data;
  if (!data?.posts) throw new ImportSourceError(`${file} is not a Ghost JSON export: no db[0].data.posts`);
  return { origin: `ghost:${file}`, records: records(data), total: null };
}

const byOrder = <T extends GhostLink>(a: T, b: T) => (a.sort_order ?? 0) - (b.sort_order ?? 0);

async function* records(data: GhostData): AsyncGenerator<ImportRecord> {
  const posts = (data.posts ?? []).filter((post) => (post.type ?? "post") === "post");
  const tags = new Map(
    (data.tags ?? []).filter((tag) => !tag.name.startsWith("#")).map((tag) => [tag.id, tag]),
  );
  const users = new Map((data.users ?? []).map((user) => [user.id, user]));
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
      ...(user.created_at ? { createdAt: new Date(user.created_at).toISOString() } : {}),
      ...(user.updated_at ? { updatedAt: new Date(user.updated_at).toISOString() } : {}),
    };
  }
  const images = new Set([
    ...posts.map((post) => post.feature_image),
    ...[...users.values()].map((u) => u.profile_image),
  ]);
  for (const url of images) if (isHttpUrl(url)) yield mediaAtUrl(url);
  for (const post of posts) {
    const postTags = (data.posts_tags ?? []).filter((link) => link.post_id === post.id).sort(byOrder);
    const postAuthors = (data.posts_authors ?? []).filter((link) => link.post_id === post.id).sort(byOrder);
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
      publishedAt: new Date(date).toISOString(),
      category: UNCATEGORIZED,
      tags: postTags.flatMap((link) => {
        const tag = tags.get(link.tag_id);
        return tag ? [slugify(tag.slug)] : [];
      }),
      authors: postAuthors.flatMap((link) => {
        const user = users.get(link.author_id);
        return user ? [slugify(user.slug)] : [];
      }),
      fields: {},
      revisions: [],
      ...(post.created_at ? { createdAt: new Date(post.created_at).toISOString() } : {}),
      ...(post.updated_at ? { updatedAt: new Date(post.updated_at).toISOString() } : {}),
    };
  }
}
