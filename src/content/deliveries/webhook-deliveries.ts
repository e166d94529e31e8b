// Webhook deliveries in the database: the client's operations on them (retry one now, replay the log
// since a cursor, send a test event) and the backlog for metrics. The dispatcher's store (claim, record,
// release) is webhook-delivery-store.ts. Deliveries of content events are made by the dispatcher's
// claim, from the change log (webhook-fan-out.ts); everything here goes through the one writer too,
// naming no content change (deliveries are not content: they record no event).

import type { SqlExecutor } from "../../db/sql-executor.ts";
import { ConflictError, NotFoundError } from "../../domain/errors.ts";
import { MAX_REPLAY_EVENTS, TEST_EVENT_TYPE } from "../../domain/webhook-deliveries.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { newEventId } from "../changes/change-log.ts";
import { deliveryIdSql } from "../webhook-delivery-ids.ts";
import { type WriteClient, write } from "../writer.ts";

const NOW = `(now() AT TIME ZONE 'UTC')`;

async function endpointOf(prisma: PrismaClient, workspaceId: string, endpointId: string) {
  const endpoint = await prisma.webhookEndpoint.findFirst({
    where: { id: endpointId, workspaceId },
    select: { id: true, enabled: true, events: true },
  });
  if (!endpoint) throw new NotFoundError("Webhook endpoint", endpointId);
  return endpoint;
}

/**
 * A client sending again (a retry, a replay) says its receiver may be back: the endpoint's back-off
 * (webhook-delivery-store.ts) ends now, so the request goes out at once, as one probe while the
 * endpoint is still failing; if it fails, the back-off resumes.
 */
async function endBackoff(tx: WriteClient, endpointId: string): Promise<void> {
  await tx.webhookEndpoint.updateMany({
    where: { id: endpointId, backoffUntil: { not: null } },
    data: { backoffUntil: null },
  });
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
    await endBackoff(uow.tx, endpoint.id);
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
    if (replayed > 0) await endBackoff(uow.tx, endpoint.id);
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
