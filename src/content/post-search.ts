// Full-text search over title (weight A) and content (weight B), ranked by PostgreSQL's ts_rank.
// The `search` column is kept current by a trigger (see the init migration).
import type { SqlExecutor } from "../db/sql-executor.ts";

/** Upper bound on matches considered: a search that matches more should be narrowed by the client. */
export const SEARCH_MATCH_LIMIT = 1_000;

/** Ids of the workspace's posts matching `text`, best match first. */
export async function searchPostIds(sql: SqlExecutor, workspaceId: string, text: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM "Post"
      WHERE "workspaceId" = $1 AND search @@ websearch_to_tsquery('english', $2)
      ORDER BY ts_rank(search, websearch_to_tsquery('english', $2)) DESC, "publishedAt" DESC, id
      LIMIT ${SEARCH_MATCH_LIMIT}`,
    [workspaceId, text],
  );
  return rows.map((row) => row.id);
}
