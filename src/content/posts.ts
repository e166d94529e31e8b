// The rules of post writes: body conversion and sanitizing, references, default author, custom
// field values, and the writes themselves in one transaction.
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { notFoundError, userInputError } from "../graphql/errors.ts";
import type { CreatePostData, UpdatePostData } from "../graphql/schema/post-inputs.ts";
import { type FieldValueChanges, validateFieldValues } from "./custom-field-values.ts";
import { markdownToHtml } from "./markdown.ts";
import { byIdentifier } from "./post-filters.ts";
import { assertReferencesExist } from "./references.ts";
import { sanitizeHtml } from "./sanitize-html.ts";
import { ProblemList } from "./validation.ts";

type Tx = Prisma.TransactionClient;

export async function createPost(prisma: PrismaClient, workspaceId: string, input: CreatePostData): Promise<string> {
  const problems = checkScalars(input);
  const fieldChanges = validateFieldValues(await fieldDefinitions(prisma, workspaceId), input.fields, "create");
  problems.problems.push(...fieldChanges.problems);
  problems.throwIfAny("Invalid post");
  await assertReferencesExist(prisma, workspaceId, input);
  const authors = input.authors ?? (await defaultAuthorIds(prisma, workspaceId));

  return prisma.$transaction(async (tx) => {
    const post = await tx.post.create({
      data: {
        workspaceId,
        title: input.title,
        slug: input.slug,
        description: input.description,
        content: toStoredHtml(input.content, input.contentFormat),
        status: input.status,
        featured: input.featured ?? false,
        coverImage: input.coverImage ?? null,
        attribution: input.attribution ?? null,
        publishedAt: input.publishedAt ?? new Date(),
        categoryId: input.categoryId,
        tags: { connect: unique(input.tags ?? []).map((id) => ({ id })) },
        authors: { create: unique(authors).map((authorId, position) => ({ authorId, position })) },
      },
      select: { id: true },
    });
    await writeFieldValues(tx, post.id, fieldChanges);
    return post.id;
  });
}

export async function updatePost(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  input: UpdatePostData,
): Promise<string> {
  const existing = await prisma.post.findFirst({ where: byIdentifier(workspaceId, identifier), select: { id: true } });
  if (!existing) throw notFoundError("Post", identifier);
  const problems = checkScalars(input);
  for (const key of ["title", "content", "description", "slug", "categoryId", "status", "featured", "publishedAt"] as const) {
    if (input[key] === null) problems.add(key, "Cannot be null");
  }
  const fieldChanges =
    input.fields === undefined
      ? null
      : validateFieldValues(await fieldDefinitions(prisma, workspaceId), input.fields, "update");
  problems.problems.push(...(fieldChanges?.problems ?? []));
  problems.throwIfAny("Invalid post");
  await assertReferencesExist(prisma, workspaceId, input);

  await prisma.$transaction(async (tx) => {
    await tx.post.update({
      where: { id: existing.id },
      data: {
        title: input.title ?? undefined,
        slug: input.slug ?? undefined,
        description: input.description ?? undefined,
        content: input.content ? toStoredHtml(input.content, input.contentFormat) : undefined,
        status: input.status ?? undefined,
        featured: input.featured ?? undefined,
        coverImage: input.coverImage,
        attribution: input.attribution,
        publishedAt: input.publishedAt ?? undefined,
        categoryId: input.categoryId ?? undefined,
        tags: input.tags ? { set: unique(input.tags).map((id) => ({ id })) } : undefined,
        authors: input.authors
          ? { deleteMany: {}, create: unique(input.authors).map((authorId, position) => ({ authorId, position })) }
          : undefined,
        // A change of custom fields alone must still move updatedAt.
        updatedAt: new Date(),
      },
    });
    if (fieldChanges) await writeFieldValues(tx, existing.id, fieldChanges);
  });
  return existing.id;
}

export async function deletePost(prisma: PrismaClient, workspaceId: string, identifier: string): Promise<string> {
  const existing = await prisma.post.findFirst({ where: byIdentifier(workspaceId, identifier), select: { id: true } });
  if (!existing) throw notFoundError("Post", identifier);
  await prisma.post.delete({ where: { id: existing.id } });
  return existing.id;
}

function checkScalars(input: Partial<CreatePostData> | UpdatePostData): ProblemList {
  const problems = new ProblemList()
    .text("title", input.title, { max: 500 })
    .text("content", input.content, { max: 2_000_000 })
    .text("description", input.description, { max: 5_000 })
    .slug("slug", input.slug)
    .url("coverImage", input.coverImage);
  if (input.categoryId !== undefined && input.categoryId !== null && input.categoryId.length === 0) {
    problems.add("categoryId", "Must not be empty");
  }
  return problems;
}

function toStoredHtml(content: string, format: "html" | "markdown" | null | undefined): string {
  const html = sanitizeHtml(format === "markdown" ? markdownToHtml(content) : content);
  if (!html.trim()) throw userInputError("Invalid post", [{ field: "content", message: "Is empty once unsafe markup is removed" }]);
  return html;
}

async function defaultAuthorIds(prisma: PrismaClient, workspaceId: string): Promise<string[]> {
  const first = await prisma.author.findFirst({
    where: { workspaceId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  return first ? [first.id] : [];
}

async function fieldDefinitions(prisma: PrismaClient, workspaceId: string) {
  return prisma.field.findMany({
    where: { workspaceId },
    select: { id: true, key: true, type: true, required: true, options: { select: { value: true } } },
  });
}

async function writeFieldValues(tx: Tx, postId: string, changes: FieldValueChanges): Promise<void> {
  if (changes.clear.length) await tx.postFieldValue.deleteMany({ where: { postId, fieldId: { in: changes.clear } } });
  for (const [fieldId, value] of changes.set) {
    await tx.postFieldValue.upsert({
      where: { postId_fieldId: { postId, fieldId } },
      create: { postId, fieldId, value },
      update: { value },
    });
  }
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
