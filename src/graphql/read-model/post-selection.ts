// The pieces of Post's Prisma selection that the type (schema/post.ts) and the read model
// (post-rows.ts) must agree on: the always-selected columns and the order of authors and tags.
import type { Prisma } from "../../generated/prisma/client.ts";

/** The small columns every Post row carries (the body is selected only when asked for). */
export const POST_COLUMNS = {
  id: true,
  workspaceId: true,
  slug: true,
  title: true,
  status: true,
  featured: true,
  coverImage: true,
  description: true,
  attribution: true,
  publishedAt: true,
  createdAt: true,
  updatedAt: true,
  unpublishAt: true,
} as const satisfies Prisma.PostSelect;

/** Authors in the order they were given. */
export const POST_AUTHORS_ORDER: Prisma.PostAuthorOrderByWithRelationInput = { position: "asc" };

/** Tags by name, ties by id, so every query (and the read model) gives the same order. */
export const POST_TAGS_ORDER: Prisma.PostTagOrderByWithRelationInput[] = [
  { tag: { name: "asc" } },
  { tagId: "asc" },
];
