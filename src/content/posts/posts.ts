// The rules of post writes: body conversion and sanitizing, references, default author, custom
// field values. Checks read one statement (post-write-context.ts); the write is one more
// (post-write-sql.ts). Each write runs in its own unit of work (writer.ts), so its checks hold until it
// commits.
import { InvalidInputError, NotFoundError } from "../../domain/errors.ts";
import { type CreatePostData, POST_TEXT_LIMITS, type UpdatePostData } from "../../domain/inputs.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { RevisionActor } from "../change.ts";
import { byIdentifier } from "../identifiers.ts";
import { newId } from "../ids.ts";
import { isLive } from "../post-visibility.ts";
import { sanitizeHtml } from "../sanitize-html.ts";
import type { FieldValueChanges } from "../taxonomy/custom-field-values.ts";
import { changesAny, splitFieldValues, validateFieldValues } from "../taxonomy/custom-field-values.ts";
import { ProblemList } from "../validation.ts";
import { type UnitOfWork, write } from "../writer.ts";
import { markdownToHtml } from "./markdown.ts";
import {
  deleteTranslationRow,
  insertTranslationRow,
  lockedTranslation,
  updateTranslationRow,
  writeTranslationFieldValues,
} from "./post-translation-sql.ts";
import {
  checkNewTranslation,
  checkNewTranslationValues,
  localeOfWrite,
  refuseCreateInLocale,
  refuseRemovingDefault,
  setsSharedFields,
} from "./post-translations.ts";
import { loadPostWriteContext, type PostWriteContext } from "./post-write-context.ts";
import { insertPostRow, updatePostRow } from "./post-write-sql.ts";
import { assertReferencesExist } from "./references.ts";

/** Who writes, for the post's revision (post-revisions.ts), and how many revisions a post keeps. */
export interface PostWriteOrigin {
  actor: RevisionActor | null;
  keepRevisions: number;
}

/** Writes without a request (the seed command): no key made them; REVISIONS_KEEP's default. */
const NO_REQUEST: PostWriteOrigin = { actor: null, keepRevisions: 50 };

const revisionOf = (origin: PostWriteOrigin) => ({ actor: origin.actor, keep: origin.keepRevisions });

export async function createPost(
  prisma: PrismaClient,
  workspaceId: string,
  input: CreatePostData,
  origin: PostWriteOrigin = NO_REQUEST,
  /** The locale the write names (post-translations.ts): only the default's, where a post starts. */
  locale?: string | null,
): Promise<string> {
  const problems = checkScalars(input);
  // Converting and sanitizing the body is the slow part: done before the transaction starts.
  const content = toStoredHtml(input.content, input.contentFormat);
  return write(prisma, async (uow) => {
    refuseCreateInLocale(await localeOfWrite(uow.tx, workspaceId, locale));
    // Inside the transaction the references it checks stay until it commits (post-write-context.ts).
    const context = await loadPostWriteContext(uow.tx, workspaceId, input);
    const fieldValues = validateFieldValues(context.fields, input.fields, "create");
    problems.problems.push(...fieldValues.problems);
    problems.throwIfAny("Invalid post");
    assertReferencesExist(context, input);
    assertContentLeft(content);
    checkSchedule(input, null);
    const authors = input.authors ?? (context.firstAuthorId ? [context.firstAuthorId] : []);
    const id = newId();
    const { released } = await insertPostRow(uow.tx, {
      id,
      workspaceId,
      title: input.title,
      slug: input.slug,
      description: input.description,
      content,
      status: input.status,
      featured: input.featured ?? false,
      coverImage: input.coverImage ?? null,
      attribution: input.attribution ?? null,
      publishedAt: input.publishedAt ?? new Date(),
      unpublishAt: unpublishAtOf(input) ?? null,
      categoryId: input.categoryId,
      tagIds: unique(input.tags ?? []),
      authorIds: unique(authors),
      fieldValues,
    });
    uow.changed({
      resource: "post",
      action: "created",
      id,
      workspaceId,
      statusChange: { from: null, to: released ? "published" : "draft" },
      revision: revisionOf(origin),
    });
    return id;
  });
}

export async function updatePost(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  input: UpdatePostData,
  origin: PostWriteOrigin = NO_REQUEST,
  /** The translation the write is for (post-translations.ts); absent: the default locale's, the post's own. */
  locale?: string | null,
): Promise<string> {
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
  // Converting and sanitizing the body is the slow part: done before the transaction holds the post.
  const content = input.content ? toStoredHtml(input.content, input.contentFormat) : undefined;

  return write(prisma, async ({ tx, changed }) => {
    const target = await localeOfWrite(tx, workspaceId, locale);
    // Locks the post (see post-write-context.ts): writes of one post take turns, each seeing the last
    // one whole, and one deleted before its turn answers 404.
    // A write in another locale reads the definitions even without values: creating the translation
    // needs its required localized fields (checkNewTranslationValues).
    const inTranslation = target !== null && !target.isDefault;
    const context = await loadPostWriteContext(tx, workspaceId, {
      ...input,
      identifier,
      fields: input.fields === undefined && inTranslation ? {} : input.fields,
    });
    if (!context.postId) throw new NotFoundError("Post", identifier);
    const fieldValues =
      input.fields === undefined ? undefined : validateFieldValues(context.fields, input.fields, "update");
    problems.problems.push(...(fieldValues?.problems ?? []));
    problems.throwIfAny("Invalid post");
    assertReferencesExist(context, input);
    assertContentLeft(content);
    if (inTranslation) {
      const post = { ...context, postId: context.postId };
      await writeTranslation(
        { tx, changed },
        workspaceId,
        post,
        target.code,
        input,
        content,
        fieldValues,
        origin,
      );
      return context.postId;
    }
    checkSchedule(input, context.postDates);

    // A change of custom fields alone still moves updatedAt (the statement always sets it).
    const updated = await updatePostRow(tx, {
      id: context.postId,
      title: input.title ?? undefined,
      slug: input.slug ?? undefined,
      description: input.description ?? undefined,
      content,
      status: input.status ?? undefined,
      featured: input.featured ?? undefined,
      coverImage: input.coverImage,
      attribution: input.attribution,
      publishedAt: input.publishedAt ?? undefined,
      unpublishAt: unpublishAtOf(input),
      categoryId: input.categoryId ?? undefined,
      tagIds: input.tags ? unique(input.tags) : undefined,
      authorIds: input.authors ? unique(input.authors) : undefined,
      fieldValues,
    });
    if (!updated) throw new NotFoundError("Post", identifier);
    const statusChange = {
      from: context.postReleased ? ("published" as const) : ("draft" as const),
      to: updated.released ? ("published" as const) : ("draft" as const),
    };
    changed({
      resource: "post",
      action: "updated",
      id: context.postId,
      workspaceId,
      statusChange,
      keepsListings:
        statusChange.from === statusChange.to && LISTING_INPUTS.every((key) => input[key] === undefined),
      // Shared fields show in every translation: then the event concerns them all (event-locales.ts).
      // The default's values of localized fields are its own, as its title is.
      ...(setsSharedFields(input, fieldValues && splitFieldValues(context.fields, fieldValues))
        ? {}
        : { concerns: "default" as const }),
      revision: revisionOf(origin),
    });
    return context.postId;
  });
}

/** What a post update may set that decides which lists show the post and in what order. */
const LISTING_INPUTS = ["status", "publishedAt", "unpublishAt", "featured", "categoryId", "tags"] as const;

export async function deletePost(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  /** Removes only this translation (never the default's: that is the post); absent: the whole post. */
  locale?: string | null,
): Promise<string> {
  return write(prisma, async (uow) => {
    const target = await localeOfWrite(uow.tx, workspaceId, locale);
    if (target) {
      refuseRemovingDefault(target);
      return removeTranslation(uow, workspaceId, identifier, target.code);
    }
    const existing = await uow.tx.post.findFirst({
      where: byIdentifier(workspaceId, identifier, "posts"),
      select: { id: true, slug: true, status: true, publishedAt: true, unpublishAt: true },
    });
    if (!existing) throw new NotFoundError("Post", identifier);
    // The translations it takes along (the foreign key cascades), as its event names them.
    const translations = await uow.tx.postTranslation.findMany({
      where: { postId: existing.id },
      select: { locale: true, status: true, publishedAt: true, unpublishAt: true },
      orderBy: { locale: "asc" },
    });
    // No row deleted: a concurrent DELETE was first.
    const { count } = await uow.tx.post.deleteMany({ where: { id: existing.id } });
    if (count === 0) throw new NotFoundError("Post", identifier);
    const now = new Date();
    uow.changed({
      resource: "post",
      action: "deleted",
      id: existing.id,
      workspaceId,
      slug: existing.slug,
      translationsBefore: [existing, ...translations].map((row) => ({
        locale: "locale" in row ? row.locale : null,
        live: isLive(row, now),
      })),
    });
    return existing.id;
  });
}

type Recorder = Pick<UnitOfWork, "tx" | "changed">;

/**
 * An update naming a locale other than the default: the localized fields go to that translation
 * (created when missing), the shared ones to the post, and each records its own change — the
 * translation's names its locale and its own status change; the post's keeps its status, as no shared
 * field changes any translation's.
 */
async function writeTranslation(
  { tx, changed }: Recorder,
  workspaceId: string,
  context: PostWriteContext & { postId: string },
  code: string,
  input: UpdatePostData,
  content: string | undefined,
  fieldValues: FieldValueChanges | undefined,
  origin: PostWriteOrigin,
): Promise<void> {
  const postId = context.postId;
  // Localized fields' values belong to this translation; the others are the post's (issue 56).
  const values = fieldValues && splitFieldValues(context.fields, fieldValues);
  if (setsSharedFields(input, values)) {
    await updatePostRow(tx, {
      id: postId,
      featured: input.featured ?? undefined,
      coverImage: input.coverImage,
      attribution: input.attribution,
      categoryId: input.categoryId ?? undefined,
      tagIds: input.tags ? unique(input.tags) : undefined,
      authorIds: input.authors ? unique(input.authors) : undefined,
      fieldValues: values?.shared,
    });
    const status = context.postReleased ? ("published" as const) : ("draft" as const);
    changed({
      resource: "post",
      action: "updated",
      id: postId,
      workspaceId,
      statusChange: { from: status, to: status },
    });
  }
  const fields = {
    title: input.title ?? undefined,
    slug: input.slug ?? undefined,
    description: input.description ?? undefined,
    content,
    status: input.status ?? undefined,
    publishedAt: input.publishedAt ?? undefined,
    unpublishAt: unpublishAtOf(input),
  };
  const before = await lockedTranslation(tx, postId, code);
  if (!before) {
    checkNewTranslation(input, code);
    checkNewTranslationValues(context.fields, values?.localized);
  }
  checkSchedule(input, before);
  const after = before
    ? await updateTranslationRow(tx, postId, code, fields)
    : await insertTranslationRow(tx, {
        postId,
        workspaceId,
        locale: code,
        title: fields.title as string,
        slug: fields.slug as string,
        description: fields.description as string,
        content: fields.content as string,
        status: fields.status ?? "draft",
        publishedAt: fields.publishedAt ?? new Date(),
        unpublishAt: fields.unpublishAt ?? null,
      });
  // After the row: the values hang off the translation (a foreign key).
  if (values && changesAny(values.localized))
    await writeTranslationFieldValues(tx, postId, code, values.localized);
  const statusOf = (released: boolean) => (released ? ("published" as const) : ("draft" as const));
  changed({
    resource: "post",
    action: "updated",
    id: postId,
    workspaceId,
    locale: code,
    statusChange: { from: before ? statusOf(before.released) : null, to: statusOf(after?.released === true) },
    // The translation's own revision, listed and restored with its locale (post-revisions.ts).
    revision: revisionOf(origin),
  });
}

/** Removes the post's translation in `code`: a 404 when it has none. */
async function removeTranslation(
  { tx, changed }: Recorder,
  workspaceId: string,
  identifier: string,
  code: string,
): Promise<string> {
  const post = await tx.post.findFirst({
    where: byIdentifier(workspaceId, identifier, "posts"),
    select: { id: true },
  });
  const before = post ? await lockedTranslation(tx, post.id, code) : null;
  if (!post || !before || !(await deleteTranslationRow(tx, post.id, code)))
    throw new NotFoundError("Post translation", `${identifier} (${code})`);
  changed({
    resource: "post",
    action: "updated",
    id: post.id,
    workspaceId,
    locale: code,
    slug: before.slug,
    statusChange: { from: before.released ? "published" : "draft", to: "draft" },
  });
  return post.id;
}

/**
 * A scheduled unpublish must lie ahead and after the publish date the write leaves (the one given, else
 * the stored one, else now for a new post or translation): else a 400 naming `unpublishAt`. A new
 * publishedAt at or after an unpublish already scheduled is a 400 naming `publishedAt`.
 */
function checkSchedule(
  input: UpdatePostData,
  before: { publishedAt: number; unpublishAt: number | null } | null,
): void {
  // A draft has nothing to unpublish: its unpublishAt is cleared (unpublishAtOf), whatever was given.
  if (input.status === "draft") return;
  const now = Date.now();
  const publishedAt = input.publishedAt?.getTime() ?? before?.publishedAt ?? now;
  const problems = new ProblemList();
  if (input.unpublishAt) {
    const unpublishAt = input.unpublishAt.getTime();
    if (unpublishAt <= now) problems.add("unpublishAt", "Must be in the future");
    else if (unpublishAt <= publishedAt) problems.add("unpublishAt", "Must be after publishedAt");
  } else if (input.unpublishAt === undefined && input.publishedAt && before?.unpublishAt != null) {
    if (publishedAt >= before.unpublishAt)
      problems.add(
        "publishedAt",
        `Must be before the scheduled unpublishAt (${new Date(before.unpublishAt).toISOString()}); move or clear it`,
      );
  }
  problems.throwIfAny("Invalid post");
}

/**
 * The unpublishAt a write stores: cleared (null) when the write makes the post or translation a draft
 * by hand — nothing is left to unpublish, as in Ghost, Strapi and Payload, where unpublishing drops the
 * schedule —, else the one given (undefined: unchanged).
 */
function unpublishAtOf(input: UpdatePostData): Date | null | undefined {
  return input.status === "draft" ? null : input.unpublishAt;
}

function checkScalars(input: Partial<CreatePostData> | UpdatePostData): ProblemList {
  const problems = new ProblemList()
    .text("title", input.title, { max: POST_TEXT_LIMITS.title })
    .text("content", input.content, { max: POST_TEXT_LIMITS.content })
    .text("description", input.description, { max: POST_TEXT_LIMITS.description })
    .slug("slug", input.slug)
    .url("coverImage", input.coverImage);
  if (input.categoryId !== undefined && input.categoryId !== null && input.categoryId.length === 0) {
    problems.add("categoryId", "Must not be empty");
  }
  return problems;
}

function toStoredHtml(content: string, format: "html" | "markdown" | null | undefined): string {
  return sanitizeHtml(format === "markdown" ? markdownToHtml(content) : content);
}

function assertContentLeft(html: string | undefined): void {
  if (html !== undefined && !html.trim())
    throw new InvalidInputError("Invalid post", [
      { field: "content", message: "Is empty once unsafe markup is removed" },
    ]);
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
