// Full-text search over title (weight A) and content (weight B), ranked by PostgreSQL's ts_rank.
// The `search` column is kept current by a trigger, in the text-search configuration of the workspace's
// default locale (migration 20261128211500_default_locale_search): the query is parsed in the same one.
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { SEARCH_MAX_LENGTH } from "../../domain/constants.ts";
import { InvalidInputError } from "../../domain/errors.ts";

export interface SearchLimits {
  /** Words (runs of letters and digits): each becomes a term of the tsquery. */
  maxTerms: number;
}

/**
 * Refuses a search text over the limits (SEARCH_MAX_LENGTH characters, `maxTerms` words) before it
 * reaches SQL: PostgreSQL parses and matches a
 * tsquery of any size, and one of 100,000 terms held a connection for a minute before failing with
 * "stack depth limit exceeded". Real searches are a few words.
 */
export function checkSearchText(text: string, limits: SearchLimits): void {
  const problem =
    text.length > SEARCH_MAX_LENGTH
      ? `Must be at most ${SEARCH_MAX_LENGTH} characters`
      : countWords(text, limits.maxTerms + 1) > limits.maxTerms
        ? `Must hold at most ${limits.maxTerms} words`
        : null;
  if (problem)
    throw new InvalidInputError("The search text is too long", [{ field: "query", message: problem }]);
}

/** Words in `text`, counting no further than `stopAt`. */
function countWords(text: string, stopAt: number): number {
  let count = 0;
  for (const _ of text.matchAll(/[\p{L}\p{N}]+/gu)) if (++count >= stopAt) break;
  return count;
}

/** Upper bound on matches considered: a search that matches more should be narrowed by the client. */
export const SEARCH_MATCH_LIMIT = 1_000;

/** Ids of the workspace's posts matching `text`, best match first. */
export async function searchPostIds(sql: SqlExecutor, workspaceId: string, text: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM "Post"
      WHERE "workspaceId" = $1 AND search @@ websearch_to_tsquery(workspace_search_config($1), $2)
      ORDER BY ts_rank(search, websearch_to_tsquery(workspace_search_config($1), $2)) DESC, "publishedAt" DESC, id
      LIMIT ${SEARCH_MATCH_LIMIT}`,
    [workspaceId, text],
  );
  return rows.map((row) => row.id);
}
