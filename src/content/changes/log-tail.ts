// The change log's events of one workspace after a position, as the response caches' freshness index
// reads them (src/cache/change-index.ts): only what decides which answers an event can change — its
// position, type, resource and, for posts, whether the record it left is a draft and whether it left
// every post list as it was.
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { statementName } from "../../db/statement-names.ts";

export interface LoggedChange {
  position: number;
  type: string;
  resourceId: string;
  /** The status of the post as the event left it (`draft`, `published`), null for other resources and deletes. */
  postStatus: string | null;
  /** A post update that left every post list as it was (Change.keepsListings). */
  keepsListings: boolean;
}

/** An event as the log's statements return it (TAIL_SQL here, the append's in change-log.ts). */
export interface LoggedChangeRow {
  /** As text: a bigint does not fit every JSON reader's number. */
  position: string;
  type: string;
  resourceId: string;
  status: string | null;
  keepsListings: boolean;
}

export function loggedChange(row: LoggedChangeRow): LoggedChange {
  return {
    position: Number(row.position),
    type: row.type,
    resourceId: row.resourceId,
    postStatus: row.status,
    keepsListings: row.keepsListings,
  };
}

/**
 * The workspace's events in (after, upTo], in log order, at most `limit` of them. Every position up to a
 * head that was read is committed (appends take turns, change-log.ts), so this is all of them.
 */
export async function loggedChangesBetween(
  sql: SqlExecutor,
  workspaceId: string,
  after: number,
  upTo: number,
  limit: number,
): Promise<LoggedChange[]> {
  const rows = await sql.query<LoggedChangeRow>(TAIL_SQL, [workspaceId, String(after), String(upTo), limit], {
    name: statementName(TAIL_SQL),
  });
  return rows.map(loggedChange);
}

const TAIL_SQL = `SELECT position::text AS position, type, "resourceId", data->>'status' AS status, "keepsListings" FROM "Event"
WHERE "workspaceId" = $1 AND position > $2::bigint AND position <= $3::bigint ORDER BY position LIMIT $4`;
