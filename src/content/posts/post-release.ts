// Releasing scheduled posts: a post with status `published` whose publishedAt has come but whose
// post.published event has not been recorded yet (releasedAt null, see post-write-sql.ts) is claimed,
// stamped and announced in ONE unit of work of the one writer, so webhooks, caches and subscribers
// hear of it like of any write. Claims take FOR UPDATE SKIP LOCKED: with several instances sweeping at
// once, each due post is claimed by one of them, and its releasedAt (set in the same transaction as
// the event) keeps every later sweep from claiming it again — the event is recorded exactly once. A
// post a write holds at that moment is skipped: that write releases it itself if it is due.
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { write } from "../writer.ts";

/** How many due posts one unit of work releases; a larger backlog takes several rounds. */
export const RELEASE_BATCH = 100;

const NOW = `(now() AT TIME ZONE 'UTC')`;

const RELEASE_SQL = `
UPDATE "Post" SET "releasedAt" = ${NOW}
WHERE id IN (
  SELECT id FROM "Post"
  WHERE status = 'published' AND "releasedAt" IS NULL AND "publishedAt" <= ${NOW}
  ORDER BY "publishedAt", id
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
RETURNING id, "workspaceId"`;

// A post's translations (issue 56) are released on their own, by the same rule: the German one can
// go public on Monday while the post's default locale went public last week.
const RELEASE_TRANSLATIONS_SQL = `
UPDATE "PostTranslation" SET "releasedAt" = ${NOW}
WHERE ("postId", locale) IN (
  SELECT "postId", locale FROM "PostTranslation"
  WHERE status = 'published' AND "releasedAt" IS NULL AND "publishedAt" <= ${NOW}
  ORDER BY "publishedAt", "postId", locale
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
RETURNING "postId" AS id, "workspaceId", locale`;

// Scheduled unpublishing, by the same mechanism: a due row is claimed FOR UPDATE SKIP LOCKED and its
// unpublishAt cleared in the transaction that records its event, so no later sweep, on any instance,
// claims it again. It goes back to draft (what a manual unpublish does); only one that was public
// (released) records post.unpublished — a draft whose unpublish comes has nothing to take back.
const UNPUBLISH_SQL = `
WITH due AS (
  SELECT id, "releasedAt" IS NOT NULL AS "wasPublic" FROM "Post"
  WHERE "unpublishAt" <= ${NOW}
  ORDER BY "unpublishAt", id
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE "Post" p SET status = 'draft', "releasedAt" = NULL, "unpublishAt" = NULL, "updatedAt" = ${NOW}
FROM due WHERE p.id = due.id
RETURNING p.id, p."workspaceId", due."wasPublic"`;

const UNPUBLISH_TRANSLATIONS_SQL = `
WITH due AS (
  SELECT "postId", locale, "releasedAt" IS NOT NULL AS "wasPublic" FROM "PostTranslation"
  WHERE "unpublishAt" <= ${NOW}
  ORDER BY "unpublishAt", "postId", locale
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE "PostTranslation" t SET status = 'draft', "releasedAt" = NULL, "unpublishAt" = NULL, "updatedAt" = ${NOW}
FROM due WHERE t."postId" = due."postId" AND t.locale = due.locale
RETURNING t."postId" AS id, t."workspaceId", t.locale, due."wasPublic"`;

// timestamptz out (… AT TIME ZONE 'UTC'): drivers read a bare timestamp in the local time zone.
const NEXT_DUE_SQL = `
SELECT LEAST(
  (SELECT min("publishedAt") FROM "Post" WHERE status = 'published' AND "releasedAt" IS NULL),
  (SELECT min("publishedAt") FROM "PostTranslation" WHERE status = 'published' AND "releasedAt" IS NULL),
  (SELECT min("unpublishAt") FROM "Post"),
  (SELECT min("unpublishAt") FROM "PostTranslation")
) AT TIME ZONE 'UTC' AS "nextDue"`;

/**
 * Releases the posts and post translations due now, then unpublishes those whose unpublishAt has come
 * (at most RELEASE_BATCH of each kind); returns the ids of their posts (a post once per translation
 * released or unpublished): RELEASE_BATCH or more means more may be due.
 */
export async function releaseDuePosts(prisma: PrismaClient): Promise<string[]> {
  return write(prisma, async (uow) => {
    const posts = await uow.tx.$queryRawUnsafe<{ id: string; workspaceId: string }[]>(
      RELEASE_SQL,
      RELEASE_BATCH,
    );
    const translations = await uow.tx.$queryRawUnsafe<{ id: string; workspaceId: string; locale: string }[]>(
      RELEASE_TRANSLATIONS_SQL,
      RELEASE_BATCH,
    );
    for (const post of posts)
      uow.changed({ resource: "post", action: "released", id: post.id, workspaceId: post.workspaceId });
    for (const translation of translations)
      uow.changed({ resource: "post", action: "released", ...translation });
    // After the releases: a row released and due to go in one round goes public, then back (two events).
    type Unpublished = { id: string; workspaceId: string; wasPublic: boolean; locale?: string };
    const unpublished = [
      ...(await uow.tx.$queryRawUnsafe<Unpublished[]>(UNPUBLISH_SQL, RELEASE_BATCH)),
      ...(await uow.tx.$queryRawUnsafe<Unpublished[]>(UNPUBLISH_TRANSLATIONS_SQL, RELEASE_BATCH)),
    ];
    for (const { wasPublic, locale, id, workspaceId } of unpublished) {
      if (!wasPublic) continue;
      // What a manual unpublish (an update to draft) records: post.updated and post.unpublished.
      uow.changed({
        resource: "post",
        action: "updated",
        id,
        workspaceId,
        statusChange: { from: "published", to: "draft" },
        ...(locale ? { locale } : { concerns: "default" as const }),
      });
    }
    return [...posts, ...translations, ...unpublished].map((changed) => changed.id);
  });
}

/** When the next scheduled post is due (possibly already: a backlog), or null when none waits. */
export async function nextReleaseDue(prisma: PrismaClient): Promise<Date | null> {
  const [row] = await prisma.$queryRawUnsafe<{ nextDue: Date | string | null }[]>(NEXT_DUE_SQL);
  if (!row?.nextDue) return null;
  return row.nextDue instanceof Date ? row.nextDue : new Date(row.nextDue);
}
