// Fills a workspace with demo content through the content services — the same functions, rules and
// one writer as the API's writes, so seeded content is exactly what a client could have written.
// Used by `cli seed` and by `npm run bench` (10,000 posts, several writers at once).

import { createPost } from "../content/posts/posts.ts";
import { slugify } from "../content/slugs.ts";
import { createAuthor } from "../content/taxonomy/authors.ts";
import { createField } from "../content/taxonomy/custom-fields.ts";
import { createTaxonomy } from "../content/taxonomy/taxonomy.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { demoHtml, demoTitle, FIRST_NAMES, LAST_NAMES, pick, ROLES, TAG_WORDS, TOPICS } from "./demo-text.ts";

export interface SeedSizes {
  posts: number;
  categories: number;
  tags: number;
  authors: number;
  /** Custom field definitions; each post gets a value for each. */
  fields: number;
  /** Paragraphs per post body (≈ 400 bytes each). */
  paragraphs?: number;
}

export const DEMO_SIZES: SeedSizes = { posts: 36, categories: 6, tags: 15, authors: 5, fields: 3 };

const FIELD_KINDS = [
  { key: "reading_time", name: "Reading time", type: "number" as const },
  { key: "series", name: "Series", type: "select" as const, options: ["basics", "advanced", "case-study"] },
  { key: "sponsored", name: "Sponsored", type: "boolean" as const },
  { key: "source_url", name: "Source URL", type: "text" as const },
  {
    key: "audiences",
    name: "Audiences",
    type: "multiselect" as const,
    options: ["developers", "designers", "managers"],
  },
];

export async function seedWorkspace(
  prisma: PrismaClient,
  workspaceId: string,
  sizes: SeedSizes = DEMO_SIZES,
) {
  const run = Date.now().toString(36);
  const unique = (base: string, n: number) => `${slugify(base)}-${run}-${n}`;
  const day = 86_400_000;
  const start = Date.now() - (sizes.posts * day) / 4;

  const categories = await inOrder(range(sizes.categories), (n) =>
    createTaxonomy(prisma, "category", workspaceId, {
      name: `${pick(TOPICS, n)}${n >= TOPICS.length ? ` ${n}` : ""}`,
      slug: unique(pick(TOPICS, n), n),
      description: `Posts about ${pick(TOPICS, n).toLowerCase()}`,
    }),
  );
  const tags = await inOrder(range(sizes.tags), (n) =>
    createTaxonomy(prisma, "tag", workspaceId, {
      name: pick(TAG_WORDS, n),
      slug: unique(pick(TAG_WORDS, n), n),
    }),
  );
  const authors = await inOrder(range(sizes.authors), (n) => {
    const name = `${pick(FIRST_NAMES, n)} ${pick(LAST_NAMES, n * 3 + 1)}`;
    return createAuthor(prisma, workspaceId, {
      name,
      slug: unique(name, n),
      role: pick(ROLES, n),
      bio: `${name} writes about software.`,
      email: `${slugify(name)}.${n}@example.com`,
      image: `https://i.pravatar.cc/150?u=${n}`,
      socials: [{ platform: "github", url: `https://github.com/${slugify(name)}` }],
    });
  });
  const fieldKinds = range(sizes.fields).map((n) => pick(FIELD_KINDS, n));
  const fieldKeys = fieldKinds.map((kind, position) => `${kind.key}_${run}_${position}`.slice(0, 50));
  await inOrder(range(fieldKinds.length), (position) => {
    const kind = fieldKinds[position] as (typeof FIELD_KINDS)[number];
    return createField(prisma, workspaceId, {
      key: fieldKeys[position] as string,
      name: kind.name,
      type: kind.type,
      ...(kind.options ? { options: kind.options.map((value) => ({ value, label: value })) } : {}),
    });
  });

  const at = <T>(list: readonly T[], index: number) => list[index % list.length] as T;
  await inParallel(range(sizes.posts), POST_WRITERS, (n) =>
    createPost(prisma, workspaceId, {
      title: demoTitle(n),
      slug: unique(demoTitle(n).slice(0, 60), n),
      description: `A short summary of post ${n + 1}.`,
      content: demoHtml(n, sizes.paragraphs),
      status: n % 10 === 9 ? "draft" : "published",
      featured: n % 7 === 0,
      publishedAt: new Date(start + (n * day) / 4),
      categoryId: at(categories, n),
      coverImage: n % 3 === 0 ? `https://picsum.photos/seed/${n}/1200/630` : null,
      authors: [...new Set(range(1 + (n % 3)).map((k) => at(authors, n + k * 7)))],
      tags: [...new Set(range(3 + (n % 3)).map((k) => at(tags, n * 5 + k * 11)))],
      fields: Object.fromEntries(fieldKinds.map((kind, i) => [fieldKeys[i] as string, demoValue(kind, n)])),
    }),
  );
  return {
    categories: categories.length,
    tags: tags.length,
    authors: authors.length,
    fields: fieldKinds.length,
    posts: sizes.posts,
  };
}

/** Posts are written a few at a time: each is its own transaction, and a pool has several connections. */
const POST_WRITERS = 8;

async function inOrder<T>(items: readonly number[], create: (n: number) => Promise<T>): Promise<T[]> {
  const created: T[] = [];
  for (const n of items) created.push(await create(n));
  return created;
}

async function inParallel(
  items: readonly number[],
  writers: number,
  create: (n: number) => Promise<unknown>,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(writers, items.length) }, async () => {
      while (next < items.length) await create(items[next++] as number);
    }),
  );
}

function demoValue(kind: (typeof FIELD_KINDS)[number], n: number) {
  switch (kind.type) {
    case "number":
      return 3 + (n % 12);
    case "select":
      return pick(kind.options ?? [], n);
    case "boolean":
      return n % 5 === 0;
    case "text":
      return `https://example.com/source/${n}`;
    case "multiselect":
      return (kind.options ?? []).filter((_, i) => (n + i) % 2 === 0);
  }
}

function range(n: number): number[] {
  return Array.from({ length: Math.max(0, n) }, (_, i) => i);
}
