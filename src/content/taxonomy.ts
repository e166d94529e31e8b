// Categories and tags follow the same write rules (name, slug, description); only the model and one
// delete rule differ, so both share this module.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { notFoundError, userInputError } from "../graphql/errors.ts";
import { byIdentifier } from "./post-filters.ts";
import { ProblemList } from "./validation.ts";

export type TaxonomyModel = "category" | "tag";

export interface TaxonomyCreate {
  name: string;
  slug: string;
  description?: string | null;
}

export interface TaxonomyUpdate {
  name?: string | null;
  slug?: string | null;
  description?: string | null;
}

const label: Record<TaxonomyModel, string> = { category: "Category", tag: "Tag" };

/** The subset of Prisma's category/tag delegates used here; both models have these columns. */
interface TaxonomyDelegate {
  findFirst(args: object): Promise<{ id: string } | null>;
  create(args: object): Promise<{ id: string }>;
  update(args: object): Promise<{ id: string }>;
  delete(args: object): Promise<{ id: string }>;
}

function delegate(prisma: PrismaClient, model: TaxonomyModel): TaxonomyDelegate {
  return prisma[model] as unknown as TaxonomyDelegate;
}

export async function findTaxonomyId(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const found = await delegate(prisma, model).findFirst({
    where: byIdentifier(workspaceId, identifier),
    select: { id: true },
  });
  if (!found) throw notFoundError(label[model], identifier);
  return found.id;
}

export async function createTaxonomy(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  input: TaxonomyCreate,
): Promise<string> {
  check(input).throwIfAny(`Invalid ${model}`);
  const row = await delegate(prisma, model).create({
    data: { workspaceId, name: input.name, slug: input.slug, description: input.description ?? null },
    select: { id: true },
  });
  return row.id;
}

export async function updateTaxonomy(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
  input: TaxonomyUpdate,
): Promise<string> {
  const problems = check(input);
  if (input.name === null) problems.add("name", "Cannot be null");
  if (input.slug === null) problems.add("slug", "Cannot be null");
  problems.throwIfAny(`Invalid ${model}`);
  const id = await findTaxonomyId(prisma, model, workspaceId, identifier);
  await delegate(prisma, model).update({
    where: { id },
    data: { name: input.name ?? undefined, slug: input.slug ?? undefined, description: input.description },
    select: { id: true },
  });
  return id;
}

export async function deleteTaxonomy(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const id = await findTaxonomyId(prisma, model, workspaceId, identifier);
  if (model === "category") {
    // Every post needs a category: deleting one that is in use would orphan posts.
    const inUse = await prisma.post.count({ where: { categoryId: id } });
    if (inUse > 0) {
      throw userInputError(`Category "${identifier}" still has ${inUse} post${inUse === 1 ? "" : "s"}`, [
        { field: "identifier", message: "Move or delete the category's posts first" },
      ]);
    }
  }
  await delegate(prisma, model).delete({ where: { id } });
  return id;
}

function check(input: TaxonomyUpdate): ProblemList {
  return new ProblemList()
    .text("name", input.name, { max: 200 })
    .slug("slug", input.slug)
    .text("description", input.description, { min: 0, max: 5_000 });
}
