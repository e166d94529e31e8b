// The fan-out: one webhook delivery per (event, subscribed endpoint), made from the change log after the
// event's write has committed, not inside it. Every endpoint keeps a cursor, `fannedOutTo`: the log
// position up to which its deliveries exist. A fan-out takes the endpoint's events after the cursor, in
// order, makes a delivery for each one the endpoint subscribes to (none while it is disabled) and moves
// the cursor past them, all in one statement: a crash leaves either both or neither, so no event is
// skipped and none fanned out twice (a delivery's id is derived from the pair, and ON CONFLICT DO
// NOTHING keeps a replayed one as it is).
//
// Why not in the write: appends take turns (change-log.ts holds an advisory lock from the append to
// COMMIT), so whatever the append statement does is paid once per write by every writer waiting for its
// turn. Measured with `npm run bench:webhooks`: the delivery rows made there, and the dispatcher's claim
// of each of them again, were most of what one subscribed endpoint cost the writes. A dispatcher fans
// out in its claim statement instead (webhook-deliveries.ts), a batch of events at once, and takes the
// new deliveries' leases in the same insert.
//
// Why a cursor is enough: positions become visible in order (change-log.ts), so once an event is
// visible every earlier one is too, or never will be; a cursor never passes an event still to come.
// The cursor row is locked while it moves: two instances never fan out one endpoint at the same time
// (the dispatcher skips an endpoint locked elsewhere, SKIP LOCKED), and a change to the endpoint's
// subscription or state first fans out what was written before it, under the old settings
// (fanOutEndpoint, called by webhook-endpoints.ts), so an event goes where the endpoint's settings at its
// commit send it.

import { logHeadExpression } from "../changes/change-log.ts";
import { deliveryIdSql } from "../webhook-delivery-ids.ts";
import type { WriteClient } from "../writer.ts";

const NOW = `(now() AT TIME ZONE 'UTC')`;

/** Events one endpoint's cursor moves past per dispatcher round: a backlog is fanned out in slices. */
export const FAN_OUT_SLICE = 500;

/**
 * CTEs `behind` (the endpoints locked for fan-out), `batch` (their events after the cursor),
 * `advanced` (the cursors moved; `taken` events each) and `fresh` (the deliveries to make, ranked in the
 * log's order). A delivery is dated by its event, `createdAt` and `nextAttemptAt` alike, as when it was
 * made in the event's write: the delivery log lists them in the order of the writes, a batch's too, and
 * the backlog's age counts from the write. `endpoints` picks and locks the endpoint rows; `$slice` bounds the events per endpoint.
 */
export function fanOutCtes(endpoints: string, slice: string): string {
  return `behind AS (${endpoints}),
batch AS (
  SELECT b.id AS "endpointId", b."workspaceId", b.events, b.enabled, e.id AS "eventId", e.type, e.position,
    e."createdAt"
  FROM behind b CROSS JOIN LATERAL (
    SELECT e.id, e.type, e.position, e."createdAt" FROM "Event" e
    WHERE e."workspaceId" = b."workspaceId" AND e.position > b."fannedOutTo"
    ORDER BY e.position
    LIMIT ${slice}
  ) e
),
advanced AS (
  UPDATE "WebhookEndpoint" w SET "fannedOutTo" = GREATEST(w."fannedOutTo", m.position)
  FROM (SELECT "endpointId", max(position) AS position, count(*) AS taken FROM batch GROUP BY "endpointId") m
  WHERE w.id = m."endpointId"
  RETURNING m.taken
),
fresh AS (
  SELECT b.*, ${deliveryIdSql(`b."eventId"`, `b."endpointId"`)} AS id,
    row_number() OVER (ORDER BY b.position, b."endpointId") AS rank
  FROM batch b
  WHERE b.enabled AND (b.events @> ARRAY['*'] OR b.type = ANY (b.events))
)`;
}

/**
 * The dispatcher's choice: every endpoint with events after its cursor, except those another
 * transaction holds (another instance fanning them out, a client changing them): they are left to it.
 */
export const ENDPOINTS_BEHIND_SQL = `SELECT w.id, w."workspaceId", w.events, w.enabled, w."fannedOutTo"
  FROM "WebhookEndpoint" w
  WHERE EXISTS (SELECT 1 FROM "Event" e WHERE e."workspaceId" = w."workspaceId" AND e.position > w."fannedOutTo")
  FOR UPDATE SKIP LOCKED`;

// One endpoint, waiting for its lock (a dispatcher's statement is short), every event after its cursor.
const FAN_OUT_ENDPOINT_SQL = `WITH ${fanOutCtes(
  `SELECT w.id, w."workspaceId", w.events, w.enabled, w."fannedOutTo" FROM "WebhookEndpoint" w WHERE w.id = $1 FOR UPDATE`,
  "ALL",
)},
made AS (
  INSERT INTO "WebhookDelivery" (id, "workspaceId", "endpointId", "eventId", "eventType", "nextAttemptAt", "createdAt", "updatedAt")
  SELECT f.id, f."workspaceId", f."endpointId", f."eventId", f.type, f."createdAt", f."createdAt", ${NOW}
  FROM fresh f
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT (SELECT count(*) FROM made)::int AS made`;

/**
 * Fans out the endpoint's events up to now under its current settings, inside the caller's transaction
 * (before it changes what the endpoint subscribes to or whether it is enabled); returns how many
 * deliveries it made.
 */
export async function fanOutEndpoint(tx: WriteClient, endpointId: string): Promise<number> {
  const [row] = await tx.$queryRawUnsafe<{ made: number }[]>(FAN_OUT_ENDPOINT_SQL, endpointId);
  return row?.made ?? 0;
}

/** The log's head for a new endpoint's cursor: it is sent the events written after it. */
export async function fanOutStart(tx: WriteClient, workspaceId: string): Promise<bigint> {
  // Inside the writer's transaction (its snapshot), so through its client rather than logHead's pool.
  const [row] = await tx.$queryRawUnsafe<{ head: string }[]>(
    `SELECT ${logHeadExpression("$1")} AS head`,
    workspaceId,
  );
  return BigInt(row?.head ?? "0");
}
