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

// timestamptz out (… AT TIME ZONE 'UTC'): drivers read a bare timestamp in the local time zone.
const NEXT_DUE_SQL = `
SELECT min("publishedAt") AT TIME ZONE 'UTC' AS "nextDue" FROM "Post"
WHERE status = 'published' AND "releasedAt" IS NULL`;

/** Releases the posts due now (at most RELEASE_BATCH); returns their ids. */
export async function releaseDuePosts(prisma: PrismaClient): Promise<string[]> {
  return write(prisma, async (uow) => {
    const released = await uow.tx.$queryRawUnsafe<{ id: string; workspaceId: string }[]>(
      RELEASE_SQL,
      RELEASE_BATCH,
    );
    for (const post of released)
      uow.changed({ resource: "post", action: "released", id: post.id, workspaceId: post.workspaceId });
    return released.map((post) => post.id);
  });
}

/** When the next scheduled post is due (possibly already: a backlog), or null when none waits. */
export async function nextReleaseDue(prisma: PrismaClient): Promise<Date | null> {
  const [row] = await prisma.$queryRawUnsafe<{ nextDue: Date | string | null }[]>(NEXT_DUE_SQL);
  if (!row?.nextDue) return null;
  return row.nextDue instanceof Date ? row.nextDue : new Date(row.nextDue);
}
