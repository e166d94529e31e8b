// Fills a workspace with demo content using batched writes (createMany), so even the benchmark's
// 10,000 posts seed in seconds. Used by `cli seed` and by `npm run bench`.

import { slugify } from "../content/slugs.ts";
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

const BATCH = 1_000;
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

  const categories = range(sizes.categories).map((n) => ({
    id: `cat_${run}_${n}`,
    workspaceId,
    name: `${pick(TOPICS, n)}${n >= TOPICS.length ? ` ${n}` : ""}`,
    slug: unique(pick(TOPICS, n), n),
    description: `Posts about ${pick(TOPICS, n).toLowerCase()}`,
  }));
  const tags = range(sizes.tags).map((n) => ({
    id: `tag_${run}_${n}`,
    workspaceId,
    name: pick(TAG_WORDS, n),
    slug: unique(pick(TAG_WORDS, n), n),
    description: null,
  }));
  const authors = range(sizes.authors).map((n) => {
    const name = `${pick(FIRST_NAMES, n)} ${pick(LAST_NAMES, n * 3 + 1)}`;
    return {
      id: `aut_${run}_${n}`,
      workspaceId,
      name,
      slug: unique(name, n),
      role: pick(ROLES, n),
      bio: `${name} writes about software.`,
      email: `${slugify(name)}.${n}@example.com`,
      image: `https://i.pravatar.cc/150?u=${n}`,
      socials: [{ platform: "github", url: `https://github.com/${slugify(name)}` }],
    };
  });
  await prisma.category.createMany({ data: categories });
  await prisma.tag.createMany({ data: tags });
  await prisma.author.createMany({ data: authors });

  const fieldKinds = range(sizes.fields).map((n) => pick(FIELD_KINDS, n));
  const fields: { id: string }[] = [];
  for (const [position, kind] of fieldKinds.entries()) {
    fields.push(
      await prisma.field.create({
        data: {
          workspaceId,
          key: `${kind.key}_${run}_${position}`.slice(0, 50),
          name: kind.name,
          type: kind.type,
          position,
          options: { create: (kind.options ?? []).map((value, i) => ({ value, label: value, position: i })) },
        },
      }),
    );
  }

  for (let from = 0; from < sizes.posts; from += BATCH) {
    const batch = range(Math.min(BATCH, sizes.posts - from)).map((i) => from + i);
    await prisma.post.createMany({
      data: batch.map((n) => ({
        id: `pst_${run}_${n}`,
        workspaceId,
        title: demoTitle(n),
        slug: unique(demoTitle(n).slice(0, 60), n),
        description: `A short summary of post ${n + 1}.`,
        content: demoHtml(n, sizes.paragraphs),
        status: n % 10 === 9 ? "draft" : "published",
        featured: n % 7 === 0,
        publishedAt: new Date(start + (n * day) / 4),
        categoryId: (categories[n % categories.length] as { id: string }).id,
        coverImage: n % 3 === 0 ? `https://picsum.photos/seed/${n}/1200/630` : null,
      })),
    });
    await prisma.postAuthor.createMany({
      data: batch.flatMap((n) =>
        range(1 + (n % 3)).map((k) => ({
          postId: `pst_${run}_${n}`,
          authorId: (authors[(n + k * 7) % authors.length] as { id: string }).id,
          position: k,
        })),
      ),
      skipDuplicates: true,
    });
    await prisma.postFieldValue.createMany({
      data: batch.flatMap((n) =>
        fields.map((field, i) => ({
          postId: `pst_${run}_${n}`,
          fieldId: field.id,
          value: demoValue(fieldKinds[i]!, n),
        })),
      ),
    });
    await prisma.postTag.createMany({
      data: batch.flatMap((n) =>
        [
          ...new Set(
            range(3 + (n % 3)).map((k) => (tags[(n * 5 + k * 11) % tags.length] as { id: string }).id),
          ),
        ].map((tagId) => ({ postId: `pst_${run}_${n}`, tagId })),
      ),
    });
  }
  return {
    categories: categories.length,
    tags: tags.length,
    authors: authors.length,
    fields: fields.length,
    posts: sizes.posts,
  };
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
