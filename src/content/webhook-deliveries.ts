// Webhook deliveries in the database: the dispatcher's store (claim with a lease, record an attempt,
// release), and the client's operations on deliveries (retry one now, replay the log since a cursor,
// send a test event). Deliveries of content events are made by the dispatcher's claim, from the change
// log (webhook-fan-out.ts); everything here goes through the one writer too, naming no content change
// (deliveries are not content: they record no event).
//
// A lease is the claimant's token: recording an attempt changes the delivery's status only while the
// delivery still holds the lease that was claimed. If a retry or replay restarted the delivery meanwhile,
// or the lease ran out and another instance claimed it, the attempt is logged and the status left to
// whoever holds it now.

import type { SqlExecutor } from "../db/sql-executor.ts";
import { ConflictError, NotFoundError } from "../domain/errors.ts";
import { MAX_REPLAY_EVENTS, TEST_EVENT_TYPE } from "../domain/webhook-deliveries.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { ClaimedDelivery, DeliveryStore } from "../webhooks/dispatcher.ts";
import { outgoing, type WebhookEvent } from "../webhooks/payload.ts";
import { newEventId } from "./change-log.ts";
import { newId } from "./ids.ts";
import { deliveryIdSql } from "./webhook-delivery-ids.ts";
import { activeSecrets } from "./webhook-endpoints.ts";
import { ENDPOINTS_BEHIND_SQL, FAN_OUT_SLICE, fanOutCtes } from "./webhook-fan-out.ts";
import { write, writeStatement } from "./writer.ts";

const NOW = `(now() AT TIME ZONE 'UTC')`;

// A claim round in one statement: first the fan-out (webhook-fan-out.ts) of the events written since
// the last round, whose new deliveries are inserted already leased to this instance (as many as it has
// free slots; the rest wait, unleased, for the next round); then the deliveries that were due already.
//
// Due: not yet succeeded or given up, its time has come, nobody's lease runs, and its endpoint is
// enabled (test events go out to disabled endpoints too: a client checks its receiver before enabling).
// Oldest due first, then in the log's order (event ids sort by time); deliveries are sent concurrently,
// so receivers must not rely on arrival order (the README says so). SKIP LOCKED lets instances claim
// side by side without waiting for each other. (The deliveries the fan-out inserts are not visible to
// the rest of the statement: `due` cannot take them a second time.) The same statement returns what
// sending needs: the endpoint's URL and secrets, and the event from the log (test events carry their
// own payload).
/** The earliest moment a delivery becomes due or its lease runs out (a crashed holder's). */
const NEXT_DUE_SELECT = `SELECT min(GREATEST(d."nextAttemptAt", COALESCE(d."leaseUntil", d."nextAttemptAt"))) AT TIME ZONE 'UTC'
FROM "WebhookDelivery" d JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
WHERE d.status IN ('pending', 'retrying') AND (w.enabled OR d."eventType" = '${TEST_EVENT_TYPE}')`;

// A logged event's body as payload.ts's webhookBody() makes it, built here: the event's data goes from
// the row to the receiver as text, never parsed into objects and serialized again by the service (that
// was a tenth of what the service spent on a delivery). `createdAt` is stored in UTC, printed as
// toISOString() does.
const LOGGED_BODY_SQL = `CASE WHEN e.id IS NOT NULL THEN '{"id":' || to_json(e.id)::text || ',"type":' || to_json(e.type)::text
    || ',"event":' || to_json(e.type)::text
    || ',"createdAt":"' || to_char(e."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    || '","workspaceId":' || to_json(e."workspaceId")::text || ',"data":' || e.data::text || '}' END`;

const CLAIM_SQL = `WITH ${fanOutCtes(ENDPOINTS_BEHIND_SQL, "$3")},
due AS (
  SELECT d.id FROM "WebhookDelivery" d
  JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
  WHERE d.status IN ('pending', 'retrying') AND d."nextAttemptAt" <= ${NOW}
    AND (d."leaseUntil" IS NULL OR d."leaseUntil" < ${NOW})
    AND (w.enabled OR d."eventType" = '${TEST_EVENT_TYPE}')
  ORDER BY d."nextAttemptAt", d."eventId"
  LIMIT $1
  FOR UPDATE OF d SKIP LOCKED
),
claimed AS (
  UPDATE "WebhookDelivery" d SET "leaseUntil" = ${NOW} + $2 * interval '1 millisecond'
  FROM due
  WHERE d.id = due.id
  RETURNING d.id, d."endpointId", d."eventId", d.payload, d."failedAttempts", d."leaseUntil"
),
fanned AS (
  INSERT INTO "WebhookDelivery" (id, "workspaceId", "endpointId", "eventId", "eventType", "nextAttemptAt", "leaseUntil", "createdAt", "updatedAt")
  SELECT f.id, f."workspaceId", f."endpointId", f."eventId", f.type, f."createdAt",
    CASE WHEN f.rank <= $1 - (SELECT count(*) FROM due) THEN ${NOW} + $2 * interval '1 millisecond' END,
    f."createdAt", ${NOW}
  FROM fresh f
  ON CONFLICT DO NOTHING
  RETURNING id, "endpointId", "eventId", payload, "failedAttempts", "leaseUntil"
),
sending AS (
  SELECT * FROM claimed
  UNION ALL
  SELECT * FROM fanned WHERE "leaseUntil" IS NOT NULL
)
SELECT c.id, c."endpointId", c."eventId", c.payload, c."failedAttempts", c."leaseUntil" AT TIME ZONE 'UTC' AS "leaseUntil",
  w.url, w.secret, w."previousSecret", w."previousSecretExpiresAt" AT TIME ZONE 'UTC' AS "previousSecretExpiresAt",
  e.type AS "eventType", ${LOGGED_BODY_SQL} AS "eventBody", NULL::timestamptz AS "nextDue"
FROM sending c
JOIN "WebhookEndpoint" w ON w.id = c."endpointId"
LEFT JOIN "Event" e ON e.id = c."eventId" AND c.payload IS NULL
UNION ALL
-- One more row, with no delivery: when the first delivery not claimed now becomes due or claimable;
-- now when fresh deliveries wait unleased or an endpoint has events beyond this round's slice.
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  CASE WHEN EXISTS (SELECT 1 FROM fanned WHERE "leaseUntil" IS NULL) OR EXISTS (SELECT 1 FROM advanced WHERE taken >= $3)
    THEN now()
    -- An endpoint with events to fan out was locked by another instance's round, which may have
    -- started before those events committed: look again shortly rather than at the next sweep.
    WHEN EXISTS (
      SELECT 1 FROM "WebhookEndpoint" w
      WHERE w.id NOT IN (SELECT id FROM behind)
        AND EXISTS (SELECT 1 FROM "Event" e WHERE e."workspaceId" = w."workspaceId" AND e.position > w."fannedOutTo")
    ) THEN now() + interval '100 milliseconds'
    ELSE (${NEXT_DUE_SELECT} AND d.id NOT IN (SELECT id FROM due))
  END
ORDER BY "eventId" NULLS LAST`;

// Every finished attempt of a dispatcher's batch in one statement: the attempts logged (only those whose
// delivery still exists: deleting an endpoint, or its workspace, while an attempt is in flight deletes
// its deliveries, and that attempt has nothing left to belong to; `present` locks the rows it keeps
// (KEY SHARE), so a delete committing meanwhile cannot pull one away before the insert); each delivery's
// outcome applied if it still holds the claimed lease; then per endpoint, from the attempts that
// counted: a success ends its failing streak, a failure starts one (or continues it), and the endpoint
// is disabled after a 410 Gone ($3's reason) or when its streak began at or before the cutoff ($2).
// Endpoints whose state does not change are not written.
const RECORD_SQL = `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
    "attemptId" text, "deliveryId" text, "endpointId" text, "leaseUntil" timestamp(3),
    "attemptedAt" timestamp(3), "durationMs" int, "statusCode" int, error text, "responseBody" text,
    status text, "nextAttemptAt" timestamp(3), "endpointFailed" boolean, "disableEndpoint" text)
),
present AS (
  SELECT d.id FROM "WebhookDelivery" d WHERE d.id IN (SELECT "deliveryId" FROM input) FOR KEY SHARE OF d
),
logged AS (
  INSERT INTO "WebhookAttempt" (id, "deliveryId", "attemptedAt", "durationMs", "statusCode", error, "responseBody")
  SELECT "attemptId", "deliveryId", "attemptedAt", "durationMs", "statusCode", error, "responseBody" FROM input
  WHERE "deliveryId" IN (SELECT id FROM present)
),
settled AS (
  UPDATE "WebhookDelivery" d SET status = i.status,
    "failedAttempts" = d."failedAttempts" + CASE WHEN i."endpointFailed" THEN 1 ELSE 0 END,
    "nextAttemptAt" = COALESCE(i."nextAttemptAt", d."nextAttemptAt"),
    "leaseUntil" = NULL, "updatedAt" = ${NOW}
  FROM input i
  WHERE d.id = i."deliveryId" AND d."leaseUntil" = i."leaseUntil"
  RETURNING i."endpointId", i."endpointFailed", i."attemptedAt", i."disableEndpoint"
),
per_endpoint AS (
  SELECT "endpointId", bool_or(NOT "endpointFailed") AS recovered,
    min("attemptedAt") FILTER (WHERE "endpointFailed") AS "firstFailure", max("disableEndpoint") AS gone
  FROM settled GROUP BY "endpointId"
),
judged AS (
  SELECT p.*, w.id, CASE WHEN p.recovered THEN NULL ELSE COALESCE(w."failingSince", p."firstFailure") END AS "failingSince",
    CASE
      WHEN NOT w.enabled THEN NULL
      WHEN p.gone IS NOT NULL THEN p.gone
      WHEN NOT p.recovered AND COALESCE(w."failingSince", p."firstFailure") <= $2::timestamp(3) THEN $3
    END AS "disableWith"
  FROM per_endpoint p JOIN "WebhookEndpoint" w ON w.id = p."endpointId"
)
UPDATE "WebhookEndpoint" w SET "failingSince" = j."failingSince",
  enabled = w.enabled AND j."disableWith" IS NULL,
  "disabledReason" = COALESCE(j."disableWith", w."disabledReason")
FROM judged j
WHERE w.id = j.id
  AND (w."failingSince" IS DISTINCT FROM j."failingSince" OR j."disableWith" IS NOT NULL)`;

interface ClaimedRow {
  /** Null on the last row, which carries only `nextDue`. */
  id: string | null;
  nextDue: Date | null;
  endpointId: string;
  eventId: string;
  payload: unknown;
  failedAttempts: number;
  leaseUntil: Date;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  eventType: string | null;
  /** The logged event's body (LOGGED_BODY_SQL); null for a test event, or one gone from the log. */
  eventBody: string | null;
}

// Leases given back (shutdown): only those still held as claimed.
const RELEASE_SQL = `UPDATE "WebhookDelivery" d SET "leaseUntil" = NULL
FROM jsonb_to_recordset($1::jsonb) AS r(id text, "leaseUntil" timestamp(3))
WHERE d.id = r.id AND d."leaseUntil" = r."leaseUntil"`;

/** The dispatcher's store: single statements on the raw SQL executor (writer.ts writeStatement). */
export function createDeliveryStore(sql: SqlExecutor): DeliveryStore {
  return {
    async claim(limit, leaseMs) {
      const rows = await writeStatement<ClaimedRow>(sql, CLAIM_SQL, limit, leaseMs, FAN_OUT_SLICE);
      const last = rows.at(-1);
      return {
        deliveries: rows
          .filter((row): row is ClaimedRow & { id: string } => row.id !== null)
          .map(claimedDelivery),
        nextDueAt: last?.id === null ? last.nextDue : null,
      };
    },

    async record(outcomes, failingCutoff) {
      if (outcomes.length === 0) return;
      const rows = outcomes.map(
        ({ delivery, attempt, status, nextAttemptAt, endpointFailed, disableEndpoint }) => ({
          attemptId: newId(),
          deliveryId: delivery.id,
          endpointId: delivery.endpointId,
          leaseUntil: delivery.leaseUntil.toISOString(),
          ...attempt,
          attemptedAt: attempt.attemptedAt.toISOString(),
          status,
          nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
          endpointFailed,
          disableEndpoint,
        }),
      );
      const days = Math.round((Date.now() - failingCutoff.getTime()) / 86_400_000);
      const reason = `Every delivery failed since before ${failingCutoff.toISOString()} (${days} days)`;
      await writeStatement(sql, RECORD_SQL, JSON.stringify(rows), failingCutoff.toISOString(), reason);
    },

    async release(deliveries) {
      if (deliveries.length === 0) return;
      const held = deliveries.map(({ id, leaseUntil }) => ({ id, leaseUntil: leaseUntil.toISOString() }));
      await writeStatement(sql, RELEASE_SQL, JSON.stringify(held));
    },
  };
}

function claimedDelivery(row: ClaimedRow & { id: string }): ClaimedDelivery {
  const logged =
    row.eventType !== null && row.eventBody !== null
      ? { id: row.eventId, type: row.eventType, body: row.eventBody }
      : null;
  return {
    id: row.id,
    endpointId: row.endpointId,
    url: row.url,
    secrets: activeSecrets(row),
    event: row.payload !== null ? outgoing(storedTestEvent(row.payload)) : logged,
    failedAttempts: row.failedAttempts,
    leaseUntil: row.leaseUntil,
  };
}

function storedTestEvent(payload: unknown): WebhookEvent {
  const stored = payload as Omit<WebhookEvent, "createdAt"> & { createdAt: string };
  return { ...stored, createdAt: new Date(stored.createdAt) };
}

async function endpointOf(prisma: PrismaClient, workspaceId: string, endpointId: string) {
  const endpoint = await prisma.webhookEndpoint.findFirst({
    where: { id: endpointId, workspaceId },
    select: { id: true, enabled: true, events: true },
  });
  if (!endpoint) throw new NotFoundError("Webhook endpoint", endpointId);
  return endpoint;
}

function refuseWhileDisabled(endpoint: { enabled: boolean }, what: string): void {
  if (!endpoint.enabled)
    throw new ConflictError(
      `The webhook endpoint is disabled: enable it (PATCH enabled: true) before ${what}`,
      "enabled",
    );
}

/** Restarts a delivery now, with a fresh retry schedule; returns its id. */
export async function retryDelivery(
  prisma: PrismaClient,
  workspaceId: string,
  endpointId: string,
  deliveryId: string,
): Promise<string> {
  const endpoint = await endpointOf(prisma, workspaceId, endpointId);
  return write(prisma, async (uow) => {
    const delivery = await uow.tx.webhookDelivery.findFirst({
      where: { id: deliveryId, endpointId: endpoint.id, workspaceId },
      select: { id: true, eventType: true },
    });
    if (!delivery) throw new NotFoundError("Webhook delivery", deliveryId);
    if (delivery.eventType !== TEST_EVENT_TYPE) refuseWhileDisabled(endpoint, "retrying a delivery");
    await uow.tx.webhookDelivery.update({
      where: { id: delivery.id },
      data: { status: "pending", failedAttempts: 0, nextAttemptAt: new Date(), leaseUntil: null },
    });
    uow.queuedDeliveries(1);
    return delivery.id;
  });
}

export interface ReplayResult {
  replayed: number;
  /** The last event replayed, for the cursor to continue from; null when none was. */
  last: { position: bigint; createdAt: Date } | null;
  /** Whether events after `last` remain (a replay takes MAX_REPLAY_EVENTS at most). */
  hasMore: boolean;
}

// Every subscribed event after the position, oldest first: a new delivery for those the endpoint never
// had (an event before it subscribed), a restart for those it had.
const REPLAY_SQL = `WITH chosen AS (
  SELECT e.id, e.type, e.position, e."createdAt" FROM "Event" e
  WHERE e."workspaceId" = $1 AND e.position > $2
    AND ($3::text[] @> ARRAY['*'] OR e.type = ANY ($3::text[]))
  ORDER BY e.position
  LIMIT $5
),
restarted AS (
  INSERT INTO "WebhookDelivery" (id, "workspaceId", "endpointId", "eventId", "eventType", "nextAttemptAt", "createdAt", "updatedAt")
  SELECT ${deliveryIdSql("c.id", "$4")}, $1, $4, c.id, c.type, ${NOW}, ${NOW}, ${NOW}
  FROM chosen c
  ON CONFLICT (id) DO UPDATE
    SET status = 'pending', "failedAttempts" = 0, "nextAttemptAt" = ${NOW}, "leaseUntil" = NULL, "updatedAt" = ${NOW}
  RETURNING 1
)
SELECT (SELECT count(*) FROM restarted)::int AS replayed,
  (SELECT max(position) FROM chosen)::text AS "lastPosition",
  (SELECT max("createdAt") FROM chosen) AS "lastCreatedAt",
  EXISTS (
    SELECT 1 FROM "Event" e
    WHERE e."workspaceId" = $1 AND e.position > (SELECT max(position) FROM chosen)
      AND ($3::text[] @> ARRAY['*'] OR e.type = ANY ($3::text[]))
  ) AS "hasMore"`;

/** Re-delivers to an endpoint every event it subscribes to after `afterPosition` (the whole log: null). */
export async function replayEvents(
  prisma: PrismaClient,
  workspaceId: string,
  endpointId: string,
  afterPosition: bigint | null,
): Promise<ReplayResult> {
  const endpoint = await endpointOf(prisma, workspaceId, endpointId);
  refuseWhileDisabled(endpoint, "replaying events");
  return write(prisma, async (uow) => {
    const [row] = await uow.tx.$queryRawUnsafe<
      { replayed: number; lastPosition: string | null; lastCreatedAt: Date | null; hasMore: boolean | null }[]
    >(REPLAY_SQL, workspaceId, afterPosition ?? 0n, endpoint.events, endpoint.id, MAX_REPLAY_EVENTS);
    const replayed = row?.replayed ?? 0;
    uow.queuedDeliveries(replayed);
    const last =
      row?.lastPosition && row.lastCreatedAt
        ? { position: BigInt(row.lastPosition), createdAt: row.lastCreatedAt }
        : null;
    return { replayed, last, hasMore: row?.hasMore === true };
  });
}

/** Queues a `webhook.test` event for the endpoint (enabled or not); returns the delivery's id. */
export async function sendTestEvent(
  prisma: PrismaClient,
  workspaceId: string,
  endpointId: string,
): Promise<string> {
  const endpoint = await endpointOf(prisma, workspaceId, endpointId);
  return write(prisma, async (uow) => {
    const event = {
      id: newEventId(),
      type: TEST_EVENT_TYPE,
      createdAt: new Date().toISOString(),
      workspaceId,
      data: {
        endpointId: endpoint.id,
        message: "A test event: this endpoint receives the workspace's webhooks",
      },
    };
    const [row] = await uow.tx.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO "WebhookDelivery" (id, "workspaceId", "endpointId", "eventId", "eventType", payload, "nextAttemptAt", "createdAt", "updatedAt")
       VALUES (${deliveryIdSql("$1", "$2")}, $3, $2, $1, $4, $5::jsonb, ${NOW}, ${NOW}, ${NOW}) RETURNING id`,
      event.id,
      endpoint.id,
      workspaceId,
      TEST_EVENT_TYPE,
      JSON.stringify(event),
    );
    uow.queuedDeliveries(1);
    return (row as { id: string }).id;
  });
}

/**
 * The dispatchers' backlog for metrics: deliveries due now that nobody holds, and the events that
 * still call for one (written after an enabled endpoint's fan-out cursor, of a type it subscribes to:
 * due since they were written), and how long the oldest of them has waited. One statement, on the
 * partial index of unsettled deliveries and the log's (workspace, position) index.
 */
export async function webhookQueueState(
  sql: SqlExecutor,
): Promise<{ due: number; oldestDueSeconds: number }> {
  const [row] = await sql.query<{ due: number; oldest: number | null }>(
    `WITH waiting AS (
       SELECT d."nextAttemptAt" AS since FROM "WebhookDelivery" d
       WHERE d.status IN ('pending', 'retrying') AND d."nextAttemptAt" <= ${NOW}
         AND (d."leaseUntil" IS NULL OR d."leaseUntil" < ${NOW})
       UNION ALL
       SELECT e."createdAt" FROM "WebhookEndpoint" w
       JOIN "Event" e ON e."workspaceId" = w."workspaceId" AND e.position > w."fannedOutTo"
       WHERE w.enabled AND (w.events @> ARRAY['*'] OR e.type = ANY (w.events))
     )
     SELECT count(*)::int AS due, extract(epoch FROM ${NOW} - min(since))::float8 AS oldest FROM waiting`,
  );
  return { due: row?.due ?? 0, oldestDueSeconds: Math.max(0, row?.oldest ?? 0) };
}
