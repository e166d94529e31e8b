// Categories and tags follow the same write rules (name, slug, description); only the model and one
// delete rule differ, so both share this module.
import { isForeignKeyViolation } from "../../db/recognise-prisma-errors.ts";
import { InvalidInputError, NotFoundError } from "../../domain/errors.ts";
import type { TaxonomyCreate, TaxonomyUpdate } from "../../domain/inputs.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { byIdentifier } from "../identifiers.ts";
import { localeOfWrite } from "../locales/write-locale.ts";
import { orNotFound } from "../or-not-found.ts";
import { ProblemList } from "../validation.ts";
import { type ReadClient, type WriteClient, write } from "../writer.ts";
import { removeTranslation, writeTranslation } from "./taxonomy-translations.ts";

export type TaxonomyModel = "category" | "tag";

const label: Record<TaxonomyModel, string> = { category: "Category", tag: "Tag" };
/** The workspace's relation holding each model's records (identifiers.ts). */
const RECORDS = { category: "categories", tag: "tags" } as const;

/** The subset of Prisma's category/tag delegates used here; both models have these columns. */
interface TaxonomyDelegate {
  findFirst(args: object): Promise<{ id: string } | null>;
  create(args: object): Promise<{ id: string }>;
  update(args: object): Promise<{ id: string }>;
  deleteMany(args: object): Promise<{ count: number }>;
}

function delegate(prisma: ReadClient, model: TaxonomyModel): TaxonomyDelegate {
  return prisma[model] as unknown as TaxonomyDelegate;
}

export async function findTaxonomyId(
  prisma: ReadClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const found = await delegate(prisma, model).findFirst({
    where: byIdentifier(workspaceId, identifier, RECORDS[model]),
    select: { id: true },
  });
  if (!found) throw new NotFoundError(label[model], identifier);
  return found.id;
}

export async function createTaxonomy(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  input: TaxonomyCreate,
): Promise<string> {
  check(input).throwIfAny(`Invalid ${model}`);
  return write(prisma, async (uow) => {
    const row = await delegate(uow.tx, model).create({
      data: { workspaceId, name: input.name, slug: input.slug, description: input.description ?? null },
      select: { id: true },
    });
    uow.changed({ resource: model, action: "created", id: row.id, workspaceId });
    return row.id;
  });
}

export async function updateTaxonomy(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
  input: TaxonomyUpdate,
  /** The locale whose name and description to write (taxonomy-translations.ts); absent: the default's. */
  locale?: string | null,
): Promise<string> {
  const problems = check(input);
  if (input.name === null) problems.add("name", "Cannot be null");
  if (input.slug === null) problems.add("slug", "Cannot be null");
  problems.throwIfAny(`Invalid ${model}`);
  return write(prisma, async (uow) => {
    const target = await localeOfWrite(uow.tx, workspaceId, locale);
    const id = await findTaxonomyId(uow.tx, model, workspaceId, identifier);
    const translated = target !== null && !target.isDefault;
    if (translated)
      await writeTranslation(uow.tx, model, workspaceId, id, target, {
        name: input.name,
        text: input.description,
      });
    // The slug is shared by every locale: it is the record's, whichever locale the write names.
    const own = translated
      ? { slug: input.slug ?? undefined }
      : { name: input.name ?? undefined, slug: input.slug ?? undefined, description: input.description };
    if (!translated || own.slug !== undefined)
      await orNotFound(
        delegate(uow.tx, model).update({ where: { id }, data: own, select: { id: true } }),
        label[model],
        identifier,
      );
    // A write of one translation alone concerns that locale; one of the record's own columns, every locale.
    const onlyLocale = translated && own.slug === undefined ? { locale: target.code } : {};
    uow.changed({ resource: model, action: "updated", id, workspaceId, ...onlyLocale });
    return id;
  });
}

export async function deleteTaxonomy(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
  /** Remove only this locale's name and description (never the default's), not the record. */
  locale?: string | null,
): Promise<string> {
  if (locale !== undefined && locale !== null)
    return deleteTaxonomyTranslation(prisma, model, workspaceId, identifier, locale);
  try {
    return await write(prisma, async (uow) => {
      // The slug too: the change log records it as the deleted record's last known one.
      const found = await delegate(uow.tx, model).findFirst({
        where: byIdentifier(workspaceId, identifier, RECORDS[model]),
        select: { id: true, slug: true },
      });
      if (!found) throw new NotFoundError(label[model], identifier);
      const { id, slug } = found as { id: string; slug: string };
      // A tag's posts lose it: their read form changes, so each is named a changed post (its event
      // carries the post without the tag). The tag is locked first — the order a post write takes
      // (it locks what it points at before linking) — so no link can be added or missed meanwhile.
      const unlinked = model === "tag" ? await unlinkPosts(uow.tx, "Tag", "PostTag", "tagId", id) : [];
      const deleted = await delegate(uow.tx, model).deleteMany({ where: { id } });
      if (deleted.count === 0) throw new NotFoundError(label[model], identifier);
      uow.changed({ resource: model, action: "deleted", id, workspaceId, slug });
      for (const { postId } of unlinked)
        uow.changed({ resource: "post", action: "updated", id: postId, workspaceId });
      return id;
    });
  } catch (error) {
    // Every post needs a category: the foreign key refuses to delete one in use (also one that a
    // concurrent write has just given a post), and the client hears how many posts hold it. Counted
    // after the rolled-back transaction, which a failed statement has ended.
    if (model !== "category" || !isForeignKeyViolation(error)) throw error;
    const held = { category: byIdentifier(workspaceId, identifier, "categories") };
    const inUse = Math.max(1, await prisma.post.count({ where: held }));
    throw new InvalidInputError(`Category "${identifier}" still has ${inUse} post${inUse === 1 ? "" : "s"}`, [
      { field: "identifier", message: "Move or delete the category's posts first" },
    ]);
  }
}

async function deleteTaxonomyTranslation(
  prisma: PrismaClient,
  model: TaxonomyModel,
  workspaceId: string,
  identifier: string,
  locale: string,
): Promise<string> {
  return write(prisma, async (uow) => {
    const target = await localeOfWrite(uow.tx, workspaceId, locale);
    const id = await findTaxonomyId(uow.tx, model, workspaceId, identifier);
    if (target) await removeTranslation(uow.tx, model, id, identifier, target);
    uow.changed({ resource: model, action: "updated", id, workspaceId, locale: target?.code });
    return id;
  });
}

function check(input: TaxonomyUpdate): ProblemList {
  return new ProblemList()
    .text("name", input.name, { max: 200 })
    .slug("slug", input.slug)
    .text("description", input.description, { min: 0, max: 5_000 });
}

/**
 * Locks a tag or author row, then removes its links to posts and returns the posts that had one. The
 * lock comes first, as in post writes (post, then what it points at, then the links): taking the links
 * first would deadlock with a post write linking the same record.
 */
export async function unlinkPosts(
  tx: WriteClient,
  table: "Tag" | "Author",
  links: "PostTag" | "PostAuthor",
  column: "tagId" | "authorId",
  id: string,
): Promise<{ postId: string }[]> {
  await tx.$queryRawUnsafe(`SELECT 1 FROM "${table}" WHERE id = $1 FOR UPDATE`, id);
  return tx.$queryRawUnsafe<{ postId: string }[]>(
    `DELETE FROM "${links}" WHERE "${column}" = $1 RETURNING "postId"`,
    id,
  );
}
