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

// timestamptz out (… AT TIME ZONE 'UTC'): drivers read a bare timestamp in the local time zone.
const NEXT_DUE_SQL = `
SELECT LEAST(
  (SELECT min("publishedAt") FROM "Post" WHERE status = 'published' AND "releasedAt" IS NULL),
  (SELECT min("publishedAt") FROM "PostTranslation" WHERE status = 'published' AND "releasedAt" IS NULL)
) AT TIME ZONE 'UTC' AS "nextDue"`;

/**
 * Releases the posts and post translations due now (at most RELEASE_BATCH of each); returns the ids of
 * their posts (a post once per translation released): RELEASE_BATCH or more means more may be due.
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
    return [...posts, ...translations].map((released) => released.id);
  });
}

/** When the next scheduled post is due (possibly already: a backlog), or null when none waits. */
export async function nextReleaseDue(prisma: PrismaClient): Promise<Date | null> {
  const [row] = await prisma.$queryRawUnsafe<{ nextDue: Date | string | null }[]>(NEXT_DUE_SQL);
  if (!row?.nextDue) return null;
  return row.nextDue instanceof Date ? row.nextDue : new Date(row.nextDue);
}
