// Custom field definitions: the contract's rules for keys, names, types and options, plus the rule
// that a definition change may never silently invalidate values posts already store.
import { InvalidInputError, NotFoundError } from "../../domain/errors.ts";
import type { FieldWrite } from "../../domain/inputs.ts";
import type { FieldType, PrismaClient } from "../../generated/prisma/client.ts";
import { fieldByIdentifier } from "../identifiers.ts";
import { orNotFound } from "../or-not-found.ts";
import { ProblemList } from "../validation.ts";
import { type ReadClient, takeWorkspaceTurn, write } from "../writer.ts";

const KEY_PATTERN = /^[a-z0-9_]+$/;
const MAX_OPTIONS = 100;

const hasOptions = (type: FieldType) => type === "select" || type === "multiselect";

export async function findFieldId(
  prisma: ReadClient,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const found = await prisma.field.findFirst({
    where: fieldByIdentifier(workspaceId, identifier),
    select: { id: true },
  });
  if (!found) throw new NotFoundError("Field", identifier);
  return found.id;
}

export async function createField(
  prisma: PrismaClient,
  workspaceId: string,
  input: FieldWrite & { key: string; name: string; type: FieldType },
): Promise<string> {
  const problems = checkDefinition(input);
  if (hasOptions(input.type) && !input.options?.length) {
    problems.add("options", `Required for ${input.type} fields (1 to ${MAX_OPTIONS} options)`);
  }
  if (!hasOptions(input.type) && input.options)
    problems.add("options", `Not allowed for ${input.type} fields`);
  problems.throwIfAny("Invalid field");
  return write(prisma, async ({ tx, changed }) => {
    // Two creates at once would both read the same last position: serialise them per workspace.
    await lockFieldPositions(tx, workspaceId);
    const last = await tx.field.aggregate({ where: { workspaceId }, _max: { position: true } });
    const field = await tx.field.create({
      data: {
        workspaceId,
        key: input.key,
        name: input.name,
        description: input.description ?? null,
        type: input.type,
        required: input.required ?? false,
        localized: input.localized ?? false,
        position: (last._max.position ?? -1) + 1,
        options: { create: (input.options ?? []).map((o, position) => ({ ...o, position })) },
      },
      select: { id: true },
    });
    changed({ resource: "field", action: "created", id: field.id, workspaceId });
    return field.id;
  });
}

export async function updateField(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  input: FieldWrite,
): Promise<string> {
  const current = await prisma.field.findFirst({
    where: fieldByIdentifier(workspaceId, identifier),
    include: { options: true },
  });
  if (!current) throw new NotFoundError("Field", identifier);
  const id = current.id;
  const problems = checkDefinition(input);
  for (const key of ["key", "name", "type", "required", "localized"] as const)
    if (input[key] === null) problems.add(key, "Cannot be null");
  const type = input.type ?? current.type;
  if (input.options && !hasOptions(type)) problems.add("options", `Not allowed for ${type} fields`);
  if (input.options?.length === 0) problems.add("options", `Must have 1 to ${MAX_OPTIONS} options`);
  if (input.type && hasOptions(input.type) && !hasOptions(current.type) && !input.options?.length) {
    problems.add("options", `Required when changing the type to ${input.type}`);
  }
  problems.throwIfAny("Invalid field");
  await assertValuesStayValid(prisma, current, input);

  const position = input.position ?? null;
  await write(prisma, async ({ tx, changed }) => {
    // Moves renumber their neighbours: serialise them (and creates, which append) per workspace before
    // locking any row, so two moves cannot each hold a row the other needs.
    if (position !== null) await lockFieldPositions(tx, workspaceId);
    // Updating first locks the row for the rest of the transaction (so options are never written for a
    // field deleted meanwhile); replacing the options is a change of the field too, so it moves
    // updatedAt. A row gone since it was found is a 404.
    const replacesOptions = Boolean(input.options || (input.type && !hasOptions(input.type)));
    const update = tx.field.update({
      where: { id },
      data: {
        key: input.key ?? undefined,
        name: input.name ?? undefined,
        description: input.description,
        type: input.type ?? undefined,
        required: input.required ?? undefined,
        localized: input.localized ?? undefined,
        ...(replacesOptions ? { updatedAt: new Date() } : {}),
      },
      select: { id: true },
    });
    await orNotFound(update, "Field", identifier);
    if (replacesOptions) {
      await tx.fieldOption.deleteMany({ where: { fieldId: id } });
      await tx.fieldOption.createMany({
        data: (input.options ?? []).map((o, index) => ({
          fieldId: id,
          value: o.value,
          label: o.label,
          position: index,
        })),
      });
    }
    if (position !== null) await moveField(tx, workspaceId, id, position);
    if (typeof input.localized === "boolean" && input.localized !== current.localized)
      await moveValuesOnLocalizedChange(tx, id, input.localized);
    changed({ resource: "field", action: "updated", id, workspaceId });
  });
  return id;
}

export async function deleteField(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  return write(prisma, async (uow) => {
    // The key too: the change log records it as the deleted field's last known slug.
    const found = await uow.tx.field.findFirst({
      where: fieldByIdentifier(workspaceId, identifier),
      select: { id: true, key: true },
    });
    if (!found) throw new NotFoundError("Field", identifier);
    const { id, key } = found;
    // Stored values go with the definition (ON DELETE CASCADE).
    const { count } = await uow.tx.field.deleteMany({ where: { id } });
    if (count === 0) throw new NotFoundError("Field", identifier);
    uow.changed({ resource: "field", action: "deleted", id, workspaceId, slug: key });
    return id;
  });
}

function checkDefinition(input: FieldWrite): ProblemList {
  const problems = new ProblemList()
    .text("name", input.name, { max: 50 })
    .text("description", input.description, { min: 0, max: 280 });
  if (input.key !== undefined && input.key !== null) {
    if (input.key.length < 1 || input.key.length > 50 || !KEY_PATTERN.test(input.key)) {
      problems.add(
        "key",
        "Must be 1-50 characters of lowercase letters, digits and underscores (^[a-z0-9_]+$)",
      );
    }
  }
  if (input.position !== undefined && input.position !== null && input.position < 0)
    problems.add("position", "Must be 0 or greater");
  const options = input.options ?? [];
  if (options.length > MAX_OPTIONS) problems.add("options", `At most ${MAX_OPTIONS} options`);
  const seen = new Set<string>();
  options.forEach((option, index) => {
    if (option.value.length < 1 || option.value.length > 80)
      problems.add(`options.${index}.value`, "Must be 1-80 characters");
    if (option.label.length < 1 || option.label.length > 80)
      problems.add(`options.${index}.label`, "Must be 1-80 characters");
    if (seen.has(option.value))
      problems.add(`options.${index}.value`, `Duplicate option value "${option.value}"`);
    seen.add(option.value);
  });
  return problems;
}

type Db = Pick<PrismaClient, "postFieldValue" | "postTranslationFieldValue" | "post" | "postTranslation">;

/** Refuses definition changes that would leave posts holding values the definition no longer allows. */
async function assertValuesStayValid(
  prisma: Db,
  current: {
    id: string;
    workspaceId: string;
    key: string;
    type: FieldType;
    required: boolean;
    localized: boolean;
    options: { value: string }[];
  },
  input: FieldWrite,
): Promise<void> {
  const shared = await prisma.postFieldValue.findMany({
    where: { fieldId: current.id },
    select: { value: true },
  });
  // A localized field's translations hold values too: the rules below hold for them as well.
  const translated = current.localized
    ? await prisma.postTranslationFieldValue.findMany({
        where: { fieldId: current.id },
        select: { value: true },
      })
    : [];
  const values = [...shared, ...translated];
  if (input.type && input.type !== current.type && values.length > 0) {
    throw new InvalidInputError(
      `Cannot change the type of "${current.key}": ${values.length} post(s) store values of type ${current.type}`,
      [{ field: "type", message: `${values.length} post(s) have a ${current.type} value; clear them first` }],
    );
  }
  if (input.options && hasOptions(current.type)) {
    const kept = new Set(input.options.map((o) => o.value));
    const used = new Set(
      values.flatMap((row) => (Array.isArray(row.value) ? row.value : [row.value])) as string[],
    );
    const removedInUse = current.options.map((o) => o.value).filter((v) => used.has(v) && !kept.has(v));
    if (removedInUse.length) {
      throw new InvalidInputError(`Cannot remove options still used by posts: ${removedInUse.join(", ")}`, [
        { field: "options", message: `Still in use: ${removedInUse.join(", ")}` },
      ]);
    }
  }
  if (input.required && !current.required) {
    // Localized (and staying so): every translation needs its own value. Turned localized by this
    // change, each translation gets the shared value (moveValuesOnLocalizedChange): the posts' count holds.
    const localized = current.localized && input.localized !== false;
    const posts =
      (await prisma.post.count({ where: { workspaceId: current.workspaceId } })) +
      (localized ? await prisma.postTranslation.count({ where: { workspaceId: current.workspaceId } }) : 0);
    if (posts > values.length) {
      throw new InvalidInputError(
        `Cannot make "${current.key}" required: ${posts - values.length} post(s) have no value`,
        [
          {
            field: "required",
            message: `${posts - values.length} post(s) have no value for "${current.key}"`,
          },
        ],
      );
    }
  }
}

/**
 * A field turned localized gives each existing translation the shared value as its own (the default
 * locale's stays where it is, PostFieldValue), so no answer changes at the switch; turned shared, the
 * default locale's value becomes the shared one and the other translations' values are dropped
 * (docs/decisions.md, "Localized custom fields").
 */
async function moveValuesOnLocalizedChange(
  tx: Pick<PrismaClient, "$executeRawUnsafe">,
  fieldId: string,
  localized: boolean,
): Promise<void> {
  if (localized)
    await tx.$executeRawUnsafe(
      `INSERT INTO "PostTranslationFieldValue" ("postId", locale, "fieldId", value)
       SELECT t."postId", t.locale, v."fieldId", v.value
         FROM "PostFieldValue" v JOIN "PostTranslation" t ON t."postId" = v."postId"
        WHERE v."fieldId" = $1
       ON CONFLICT DO NOTHING`,
      fieldId,
    );
  else await tx.$executeRawUnsafe(`DELETE FROM "PostTranslationFieldValue" WHERE "fieldId" = $1`, fieldId);
}

async function moveField(
  tx: Pick<PrismaClient, "field">,
  workspaceId: string,
  id: string,
  position: number,
): Promise<void> {
  const ordered = await tx.field.findMany({
    where: { workspaceId },
    orderBy: [{ position: "asc" }, { createdAt: "asc" }],
    select: { id: true },
  });
  const ids = ordered.map((f) => f.id).filter((other) => other !== id);
  ids.splice(Math.min(position, ids.length), 0, id);
  // A neighbour deleted meanwhile is simply not renumbered (updateMany, not update).
  for (const [index, fieldId] of ids.entries())
    await tx.field.updateMany({ where: { id: fieldId }, data: { position: index } });
}

/** Held until the transaction ends: position changes of one workspace's fields happen one at a time. */
async function lockFieldPositions(tx: Pick<PrismaClient, "$executeRawUnsafe">, workspaceId: string) {
  await takeWorkspaceTurn(tx, "field-position", workspaceId);
}
