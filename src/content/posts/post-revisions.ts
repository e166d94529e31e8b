// A post's revisions: what every content write of a post left, numbered per post. They are stored by
// the one writer in the write's own statement (change-log.ts, from the same snapshot as the write's
// event: the post's read form), so a revision exists exactly when its write committed. Here: reading
// them, comparing two, and restoring one — which is an ordinary update to that snapshot (a new
// revision and the usual events), never a rewrite of history.
import { createRequire } from "node:module";
import type * as Diff from "diff";
import { InvalidInputError, NotFoundError } from "../../domain/errors.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { byIdentifier } from "../identifiers.ts";
import { requireLocaleCode } from "../locales/locale-rules.ts";
import { type PostWriteOrigin, updatePost } from "./posts.ts";
import { type RevisionSnapshot, revisionSnapshotProblems } from "./revision-snapshot.ts";

export interface PostRevisionRecord {
  number: number;
  createdAt: Date;
  actorKeyId: string | null;
  actorName: string | null;
  snapshot: RevisionSnapshot;
  /** The translation the write was for; null: the default locale's (the post's own row). */
  locale: string | null;
}

export type { RevisionSnapshot } from "./revision-snapshot.ts";

/** The fields a comparison reports, in this order; `content` also gets a line diff. */
const COMPARED_FIELDS = [
  "title",
  "slug",
  "status",
  "description",
  "content",
  "coverImage",
  "featured",
  "attribution",
  "publishedAt",
  "category",
  "tags",
  "authors",
  "fields",
] as const;

const REVISION_SELECT = {
  number: true,
  createdAt: true,
  actorKeyId: true,
  actorName: true,
  snapshot: true,
  locale: true,
} as const;

/** The post an identifier names in the workspace (any status), or NotFoundError. */
export async function revisedPostId(prisma: PrismaClient, workspaceId: string, identifier: string) {
  const post = await prisma.post.findFirst({
    where: byIdentifier(workspaceId, identifier, "posts"),
    select: { id: true },
  });
  if (!post) throw new NotFoundError("Post", identifier);
  return post.id;
}

/**
 * Whose revisions a read asks for: null for the default locale's (no `locale`, or the default's code),
 * else the code of one of the workspace's other locales. Malformed or unknown: a 400 naming `locale`.
 */
export async function revisionLocale(
  prisma: PrismaClient,
  workspaceId: string,
  locale: string | null | undefined,
): Promise<string | null> {
  if (locale === undefined || locale === null) return null;
  const code = requireLocaleCode("locale", locale);
  const row = await prisma.locale.findFirst({
    where: { workspaceId, code },
    select: { isDefault: true },
  });
  if (!row)
    throw new InvalidInputError("Unknown locale", [
      { field: "locale", message: `"${code}" is not a locale of this workspace (see /v1/locales)` },
    ]);
  return row.isDefault ? null : code;
}

/** One page of a post's revisions in one locale (null: the default's), newest first, and how many. */
export async function listRevisions(
  prisma: PrismaClient,
  postId: string,
  window: { skip: number; take: number },
  locale: string | null = null,
): Promise<{ total: number; items: PostRevisionRecord[] }> {
  const [total, rows] = await Promise.all([
    prisma.postRevision.count({ where: { postId, locale } }),
    prisma.postRevision.findMany({
      where: { postId, locale },
      orderBy: { number: "desc" },
      skip: window.skip,
      take: window.take,
      select: REVISION_SELECT,
    }),
  ]);
  return { total, items: rows as PostRevisionRecord[] };
}

export async function getRevision(
  prisma: PrismaClient,
  postId: string,
  number: number,
): Promise<PostRevisionRecord> {
  const row = await prisma.postRevision.findUnique({
    where: { postId_number: { postId, number } },
    select: REVISION_SELECT,
  });
  if (!row) throw new NotFoundError("Revision", String(number));
  return row as PostRevisionRecord;
}

export interface RevisionComparison {
  from: number;
  to: number;
  /** The fields whose values differ, with both values. */
  changes: { field: string; from: unknown; to: unknown }[];
  /** The body, line by line: unchanged, added and removed runs, in order (the `diff` package). */
  contentDiff: { added: boolean; removed: boolean; value: string }[];
}

/** What changed from revision `from` to revision `to`. */
/** `diff` loads on the first comparison, not with the server. */
const require = createRequire(import.meta.url);

export function compareRevisions(from: PostRevisionRecord, to: PostRevisionRecord): RevisionComparison {
  whole(from, "compared");
  whole(to, "compared");
  const changes = COMPARED_FIELDS.flatMap((field) => {
    const before = comparable(field, from.snapshot);
    const after = comparable(field, to.snapshot);
    return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ field, from: before, to: after }];
  });
  const { diffLines } = require("diff") as typeof Diff;
  const contentDiff = diffLines(
    withLineBreaks(from.snapshot.content),
    withLineBreaks(to.snapshot.content),
  ).map((part) => ({ added: part.added === true, removed: part.removed === true, value: part.value }));
  return { from: from.number, to: to.number, changes, contentDiff };
}

/**
 * Puts the post back to revision `number`: an ordinary update with that snapshot's content (so a new
 * revision, equal to it, and the usual events). A translation's revision is restored into that
 * translation, its localized fields only (the shared ones are the post's, shown by every translation).
 * Returns the post's id.
 */
export async function restoreRevision(
  prisma: PrismaClient,
  workspaceId: string,
  postId: string,
  number: number,
  origin: PostWriteOrigin,
): Promise<string> {
  const { snapshot, locale } = whole(await getRevision(prisma, postId, number), "restored");
  const localized = {
    title: snapshot.title,
    slug: snapshot.slug,
    status: snapshot.status,
    description: snapshot.description,
    content: snapshot.content,
    contentFormat: "html" as const,
    publishedAt: new Date(snapshot.publishedAt),
  };
  if (locale) return updatePost(prisma, workspaceId, postId, localized, origin, locale);
  return updatePost(
    prisma,
    workspaceId,
    postId,
    {
      title: snapshot.title,
      slug: snapshot.slug,
      status: snapshot.status,
      description: snapshot.description,
      content: snapshot.content,
      contentFormat: "html",
      coverImage: snapshot.coverImage,
      featured: snapshot.featured,
      attribution: snapshot.attribution,
      publishedAt: new Date(snapshot.publishedAt),
      ...(snapshot.category ? { categoryId: snapshot.category.id } : {}),
      tags: snapshot.tags.map((tag) => tag.id),
      authors: snapshot.authors.map((author) => author.id),
      fields: snapshot.fields,
    },
    origin,
  );
}

/**
 * The revision, once its snapshot is known to hold what a comparison or a restore reads; else the
 * client hears which fields are missing or wrong (InvalidInputError, a 400), not a 500.
 */
function whole(revision: PostRevisionRecord, use: "compared" | "restored"): PostRevisionRecord {
  const problems = revisionSnapshotProblems(revision.snapshot);
  if (problems.length > 0)
    throw new InvalidInputError(
      `Revision ${revision.number} cannot be ${use}: its snapshot is incomplete or malformed`,
      problems,
    );
  return revision;
}

/** References compare by id (a renamed tag is not a change of the post). */
function comparable(field: (typeof COMPARED_FIELDS)[number], snapshot: RevisionSnapshot): unknown {
  const value = snapshot[field];
  if (field === "category") return snapshot.category?.id ?? null;
  if (field === "tags" || field === "authors") return (value as { id: string }[]).map((ref) => ref.id);
  return value ?? null;
}

/** Stored HTML is often one line: break after block ends, so the diff shows paragraphs, not one line. */
function withLineBreaks(html: string): string {
  return html.replace(/(<\/(?:p|h[1-6]|li|ul|ol|blockquote|pre|div|table|tr)>)(?!\n)/gi, "$1\n");
}
