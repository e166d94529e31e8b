// The rules of post writes: body conversion and sanitizing, references, default author, custom
// field values. Checks read one statement (post-write-context.ts); the write is one more
// (post-write-sql.ts).
import type { PrismaClient } from "../generated/prisma/client.ts";
import { notFoundError, userInputError } from "../graphql/errors.ts";
import type { CreatePostData, UpdatePostData } from "../graphql/schema/post-inputs.ts";
import { validateFieldValues } from "./custom-field-values.ts";
import { newId } from "./ids.ts";
import { markdownToHtml } from "./markdown.ts";
import { byIdentifier } from "./post-filters.ts";
import { loadPostWriteContext } from "./post-write-context.ts";
import { insertPostRow, updatePostRow } from "./post-write-sql.ts";
import { assertReferencesExist } from "./references.ts";
import { sanitizeHtml } from "./sanitize-html.ts";
import { ProblemList } from "./validation.ts";

export async function createPost(
  prisma: PrismaClient,
  workspaceId: string,
  input: CreatePostData,
): Promise<string> {
  const context = await loadPostWriteContext(prisma, workspaceId, input);
  const problems = checkScalars(input);
  const fieldValues = validateFieldValues(context.fields, input.fields, "create");
  problems.problems.push(...fieldValues.problems);
  problems.throwIfAny("Invalid post");
  assertReferencesExist(context, input);
  const authors = input.authors ?? (context.firstAuthorId ? [context.firstAuthorId] : []);
  const id = newId();
  await insertPostRow(prisma, {
    id,
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
    tagIds: unique(input.tags ?? []),
    authorIds: unique(authors),
    fieldValues,
  });
  return id;
}

export async function updatePost(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  input: UpdatePostData,
): Promise<string> {
  const context = await loadPostWriteContext(prisma, workspaceId, { ...input, identifier });
  if (!context.postId) throw notFoundError("Post", identifier);
  const problems = checkScalars(input);
  for (const key of [
    "title",
    "content",
    "description",
    "slug",
    "categoryId",
    "status",
    "featured",
    "publishedAt",
  ] as const) {
    if (input[key] === null) problems.add(key, "Cannot be null");
  }
  const fieldValues =
    input.fields === undefined ? undefined : validateFieldValues(context.fields, input.fields, "update");
  problems.problems.push(...(fieldValues?.problems ?? []));
  problems.throwIfAny("Invalid post");
  assertReferencesExist(context, input);

  // A change of custom fields alone still moves updatedAt (the statement always sets it).
  await updatePostRow(prisma, {
    id: context.postId,
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
    tagIds: input.tags ? unique(input.tags) : undefined,
    authorIds: input.authors ? unique(input.authors) : undefined,
    fieldValues,
  });
  return context.postId;
}

export async function deletePost(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const existing = await prisma.post.findFirst({
    where: byIdentifier(workspaceId, identifier),
    select: { id: true },
  });
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
  if (!html.trim())
    throw userInputError("Invalid post", [
      { field: "content", message: "Is empty once unsafe markup is removed" },
    ]);
  return html;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
