// Webhook deliveries in the database: the dispatcher's store (claim with a lease, record an attempt,
// release), and the client's operations on deliveries (retry one now, replay the log since a cursor,
// send a test event). Deliveries of content events are made by the change log's own statement, in the
// write's transaction (change-log.ts); everything here goes through the one writer too, naming no
// content change (deliveries are not content: they record no event).
//
// A lease is the claimant's token: recording an attempt changes the delivery's status only while the
// delivery still holds the lease that was claimed. If a retry or replay restarted the delivery meanwhile,
// or the lease ran out and another instance claimed it, the attempt is logged and the status left to
// whoever holds it now.
import { ConflictError, NotFoundError } from "../domain/errors.ts";
import { MAX_REPLAY_EVENTS, TEST_EVENT_TYPE } from "../domain/webhook-deliveries.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { ClaimedDelivery, DeliveryStore } from "../webhooks/dispatcher.ts";
import type { WebhookEvent } from "../webhooks/payload.ts";
import { newEventId } from "./change-log.ts";
import { newId } from "./ids.ts";
import { deliveryIdSql } from "./webhook-delivery-ids.ts";
import { activeSecrets } from "./webhook-endpoints.ts";
import { write } from "./writer.ts";

const NOW = `(now() AT TIME ZONE 'UTC')`;

// Due: not yet succeeded or given up, its time has come, nobody's lease runs, and its endpoint is
// enabled (test events go out to disabled endpoints too: a client checks its receiver before enabling).
// Oldest due first, then in the log's order (event ids sort by time); a batch is sent concurrently, so
// receivers must not rely on arrival order (the README says so). SKIP LOCKED lets instances claim side by side without waiting for each other.
const CLAIM_SQL = `WITH due AS (
  SELECT d.id FROM "WebhookDelivery" d
  JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
  WHERE d.status IN ('pending', 'retrying') AND d."nextAttemptAt" <= ${NOW}
    AND (d."leaseUntil" IS NULL OR d."leaseUntil" < ${NOW})
    AND (w.enabled OR d."eventType" = '${TEST_EVENT_TYPE}')
  ORDER BY d."nextAttemptAt", d."eventId"
  LIMIT $1
  FOR UPDATE OF d SKIP LOCKED
)
UPDATE "WebhookDelivery" d SET "leaseUntil" = ${NOW} + $2 * interval '1 millisecond'
FROM due
WHERE d.id = due.id
RETURNING d.id, d."endpointId", d."eventId", d."eventType", d.payload, d."failedAttempts", d."leaseUntil"`;

const NEXT_DUE_SQL = `SELECT min(GREATEST(d."nextAttemptAt", COALESCE(d."leaseUntil", d."nextAttemptAt"))) AS due
FROM "WebhookDelivery" d JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
WHERE d.status IN ('pending', 'retrying') AND (w.enabled OR d."eventType" = '${TEST_EVENT_TYPE}')`;

interface ClaimedRow {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  payload: unknown;
  failedAttempts: number;
  leaseUntil: Date;
}

export function createDeliveryStore(prisma: PrismaClient): DeliveryStore {
  return {
    async claim(limit, leaseMs) {
      const rows = await write(prisma, ({ tx }) =>
        tx.$queryRawUnsafe<ClaimedRow[]>(CLAIM_SQL, limit, leaseMs),
      );
      if (rows.length === 0) return [];
      return withEndpointsAndEvents(prisma, rows);
    },

    async record(outcome, disableAfterFailingMs) {
      const { delivery, attempt } = outcome;
      await write(prisma, async ({ tx }) => {
        await tx.webhookAttempt.create({ data: { id: newId(), deliveryId: delivery.id, ...attempt } });
        const { count } = await tx.webhookDelivery.updateMany({
          where: { id: delivery.id, leaseUntil: delivery.leaseUntil },
          data: {
            status: outcome.status,
            failedAttempts: outcome.endpointFailed ? { increment: 1 } : undefined,
            nextAttemptAt: outcome.nextAttemptAt ?? undefined,
            leaseUntil: null,
          },
        });
        if (count === 0) return;
        if (!outcome.endpointFailed) {
          await tx.webhookEndpoint.updateMany({
            where: { id: delivery.endpointId, failingSince: { not: null } },
            data: { failingSince: null },
          });
          return;
        }
        await tx.webhookEndpoint.updateMany({
          where: { id: delivery.endpointId, failingSince: null },
          data: { failingSince: attempt.attemptedAt },
        });
        const failingFor = new Date(attempt.attemptedAt.getTime() - disableAfterFailingMs);
        const reason =
          outcome.disableEndpoint ??
          `Every delivery failed since before ${failingFor.toISOString()} (${Math.round(disableAfterFailingMs / 3_600_000)} hours)`;
        await tx.webhookEndpoint.updateMany({
          where: {
            id: delivery.endpointId,
            enabled: true,
            ...(outcome.disableEndpoint ? {} : { failingSince: { lte: failingFor } }),
          },
          data: { enabled: false, disabledReason: reason },
        });
      });
    },

    async release(deliveries) {
      if (deliveries.length === 0) return;
      await write(prisma, async ({ tx }) => {
        for (const delivery of deliveries)
          await tx.webhookDelivery.updateMany({
            where: { id: delivery.id, leaseUntil: delivery.leaseUntil },
            data: { leaseUntil: null },
          });
      });
    },

    async nextDueAt() {
      const [row] = await prisma.$queryRawUnsafe<{ due: Date | null }[]>(NEXT_DUE_SQL);
      return row?.due ?? null;
    },
  };
}

/** The claimed rows with their endpoints' URL and secrets and their events (two reads for the batch). */
async function withEndpointsAndEvents(prisma: PrismaClient, rows: ClaimedRow[]): Promise<ClaimedDelivery[]> {
  const [endpoints, events] = await Promise.all([
    prisma.webhookEndpoint.findMany({
      where: { id: { in: [...new Set(rows.map((row) => row.endpointId))] } },
      select: { id: true, url: true, secret: true, previousSecret: true, previousSecretExpiresAt: true },
    }),
    prisma.event.findMany({
      where: { id: { in: rows.filter((row) => row.payload === null).map((row) => row.eventId) } },
      select: { id: true, type: true, createdAt: true, workspaceId: true, data: true },
    }),
  ]);
  const endpointById = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  const eventById = new Map(events.map((event) => [event.id, event]));
  return rows.flatMap((row) => {
    const endpoint = endpointById.get(row.endpointId);
    // Deleted since the claim: its deliveries went with it.
    if (!endpoint) return [];
    return [
      {
        id: row.id,
        endpointId: row.endpointId,
        url: endpoint.url,
        secrets: activeSecrets(endpoint),
        event: row.payload !== null ? storedTestEvent(row.payload) : (eventById.get(row.eventId) ?? null),
        failedAttempts: row.failedAttempts,
        leaseUntil: row.leaseUntil,
      },
    ];
  });
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
  ON CONFLICT ("eventId", "endpointId") DO UPDATE
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
