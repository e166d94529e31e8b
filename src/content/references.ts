// Posts point at a category, tags and authors by id. Every missing one is named in the error, so a
// client can fix all of them in one go.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type FieldProblem, userInputError } from "../graphql/errors.ts";

type Db = Pick<PrismaClient, "category" | "tag" | "author">;

export interface PostReferences {
  categoryId?: string | null;
  tags?: readonly string[] | null;
  authors?: readonly string[] | null;
}

export async function assertReferencesExist(db: Db, workspaceId: string, refs: PostReferences): Promise<void> {
  const [categories, tags, authors] = await Promise.all([
    refs.categoryId ? db.category.findMany({ where: { workspaceId, id: refs.categoryId }, select: { id: true } }) : [],
    refs.tags?.length ? db.tag.findMany({ where: { workspaceId, id: { in: [...refs.tags] } }, select: { id: true } }) : [],
    refs.authors?.length
      ? db.author.findMany({ where: { workspaceId, id: { in: [...refs.authors] } }, select: { id: true } })
      : [],
  ]);
  const problems: FieldProblem[] = [];
  if (refs.categoryId && categories.length === 0) {
    problems.push({ field: "categoryId", message: `Category "${refs.categoryId}" does not exist` });
  }
  problems.push(...missing("tags", "Tag", refs.tags, tags), ...missing("authors", "Author", refs.authors, authors));
  if (problems.length > 0) throw userInputError("Referenced records do not exist", problems);
}

function missing(field: string, label: string, wanted: readonly string[] | null | undefined, found: { id: string }[]) {
  const present = new Set(found.map((row) => row.id));
  return [...new Set(wanted ?? [])]
    .filter((id) => !present.has(id))
    .map((id) => ({ field, message: `${label} "${id}" does not exist` }));
}
