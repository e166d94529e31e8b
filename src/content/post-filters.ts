// The post list filters of the contract, as one Prisma `where`.
import type { Prisma } from "../generated/prisma/client.ts";

export type PostStatusFilter = "published" | "draft" | "all";

export interface PostListFilter {
  status: PostStatusFilter;
  categories?: readonly string[] | null;
  excludeCategories?: readonly string[] | null;
  tags?: readonly string[] | null;
  excludeTags?: readonly string[] | null;
  featured?: boolean | null;
  /** Ids from full-text search, when a `query` was given. */
  matchingIds?: readonly string[] | null;
}

export function postListWhere(workspaceId: string, filter: PostListFilter): Prisma.PostWhereInput {
  const and: Prisma.PostWhereInput[] = [];
  if (filter.categories?.length) and.push({ category: { slug: { in: [...filter.categories] } } });
  if (filter.excludeCategories?.length)
    and.push({ NOT: { category: { slug: { in: [...filter.excludeCategories] } } } });
  if (filter.tags?.length) and.push({ tags: { some: { tag: { slug: { in: [...filter.tags] } } } } });
  if (filter.excludeTags?.length)
    and.push({ tags: { none: { tag: { slug: { in: [...filter.excludeTags] } } } } });
  if (filter.matchingIds) and.push({ id: { in: [...filter.matchingIds] } });
  return {
    workspaceId,
    ...(filter.status === "all" ? {} : { status: filter.status }),
    ...(filter.featured === null || filter.featured === undefined ? {} : { featured: filter.featured }),
    ...(and.length ? { AND: and } : {}),
  };
}

/** A record by id or slug. */
export function byIdentifier(workspaceId: string, identifier: string) {
  return { workspaceId, OR: [{ id: identifier }, { slug: identifier }] };
}
