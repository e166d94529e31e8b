// The webhook dispatcher's store (src/webhooks/dispatcher.ts's DeliveryStore): a claim round, the record
// of finished attempts and the release of leases, each one statement on the raw SQL executor
// (writer.ts writeStatement). Disabling an endpoint is a change the change log records
// (`webhook.disabled`), so it goes through the one writer (webhook-endpoints.ts).
//
// A lease is the claimant's token: recording an attempt changes the delivery's status only while the
// delivery still holds the lease that was claimed. If a retry or replay restarted the delivery meanwhile,
// or the lease ran out and another instance claimed it, the attempt is logged and the status left to
// whoever holds it now.
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { TEST_EVENT_TYPE } from "../../domain/webhook-deliveries.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { absoluteMediaReferencesInJsonText } from "../../media/media-references.ts";
import type { ClaimedDelivery, DeliveryStore } from "../../webhooks/dispatcher.ts";
import { outgoing, type WebhookEvent } from "../../webhooks/payload.ts";
import { newId } from "../ids.ts";
import { writeStatement } from "../writer.ts";
import { activeSecrets, disableFailingEndpoints } from "./webhook-endpoints.ts";
import { ENDPOINTS_BEHIND_SQL, FAN_OUT_SLICE, fanOutCtes } from "./webhook-fan-out.ts";

const NOW = `(now() AT TIME ZONE 'UTC')`;
const TEST = `'${TEST_EVENT_TYPE}'`;
const LEASE = `${NOW} + $2 * interval '1 millisecond'`;

// A logged event's body as payload.ts's webhookBody() makes it, built here: the event's data goes from
// the row to the receiver as text, never parsed into objects and serialized again by the service (that
// was a tenth of what the service spent on a delivery). `createdAt` is stored in UTC, printed as
// toISOString() does. A post's events also name the translations they concern (`locales`, as /v1/events
// shows them to a private key: a receiver of a workspace in several languages can tell which changed).
const LOGGED_BODY_SQL = `CASE WHEN e.id IS NOT NULL THEN '{"id":' || to_json(e.id)::text || ',"type":' || to_json(e.type)::text
    || ',"event":' || to_json(e.type)::text
    || ',"createdAt":"' || to_char(e."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    || '","workspaceId":' || to_json(e."workspaceId")::text || ',"data":' || e.data::text
    || CASE WHEN cardinality(e.locales) > 0 THEN ',"locales":' || to_json(e.locales)::text ELSE '' END || '}' END`;

// A claim round in one statement: first the fan-out (webhook-fan-out.ts) of the events written since
// the last round, whose new deliveries are inserted already leased to this instance (as many as it has
// free slots and the caps allow; the rest wait, unleased, for a later round); then the deliveries that
// were due already.
//
// Due: not yet succeeded or given up, its time has come, nobody's lease runs, its endpoint is enabled
// (test events go out to disabled endpoints too: a client checks its receiver before enabling) and not
// backing off (test events excepted, for the same reason). Oldest due first, then in the log's order
// (event ids sort by time); deliveries are sent concurrently, so receivers must not rely on arrival
// order (docs/webhooks.md says so). SKIP LOCKED lets instances claim side by side without waiting for each
// other. (The deliveries the fan-out inserts are not visible to the rest of the statement: `due`
// cannot take them a second time.) The same statement returns what sending needs: the endpoint's URL
// and secrets, and the event from the log (test events carry their own payload).
//
// Fairness: `busy` counts the deliveries in flight now on every instance (a lease that has not run
// out). An endpoint takes at most $4 of them ($4: WEBHOOK_ENDPOINT_CONCURRENCY; 1 while it is failing,
// a probe) and a workspace at most $5 (WEBHOOK_WORKSPACE_CONCURRENCY): of the deliveries due now
// (`due_now`), `ready` ranks each endpoint's on top of its busy ones, `fair` each workspace's that
// pass. Two instances claiming at the same moment may each take a cap's worth (each counts the other's
// leases only once committed): a bound per instance at worst, and exact whenever claims do not overlap.
const CLAIM_SQL = `WITH ${fanOutCtes(ENDPOINTS_BEHIND_SQL, "$3")},
busy AS (
  SELECT d."endpointId", d."workspaceId", count(*) AS n FROM "WebhookDelivery" d
  WHERE d.status IN ('pending', 'retrying') AND d."leaseUntil" >= ${NOW}
  GROUP BY d."endpointId", d."workspaceId"
),
busy_workspace AS (SELECT "workspaceId", sum(n) AS n FROM busy GROUP BY "workspaceId"),
due_now AS (
  SELECT d.id, d."endpointId", d."workspaceId", d."nextAttemptAt", d."eventId",
    COALESCE(b.n, 0) AS busy, CASE WHEN w."failingSince" IS NULL THEN $4::int ELSE 1 END AS cap,
    COALESCE(bw.n, 0) AS "workspaceBusy"
  FROM "WebhookDelivery" d
  JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
  LEFT JOIN busy b ON b."endpointId" = d."endpointId"
  LEFT JOIN busy_workspace bw ON bw."workspaceId" = d."workspaceId"
  WHERE d.status IN ('pending', 'retrying') AND d."nextAttemptAt" <= ${NOW}
    AND (d."leaseUntil" IS NULL OR d."leaseUntil" < ${NOW})
    AND (w.enabled OR d."eventType" = ${TEST})
    AND (w."backoffUntil" IS NULL OR w."backoffUntil" <= ${NOW} OR d."eventType" = ${TEST})
    -- Only where a slot is free: a backlog behind an endpoint or workspace at its cap (receivers that
    -- never answer) costs a scan of its rows every round, not keeping and sorting them.
    AND COALESCE(b.n, 0) < CASE WHEN w."failingSince" IS NULL THEN $4::int ELSE 1 END
    AND COALESCE(bw.n, 0) < $5::int
),
ready AS (
  SELECT d.id, d."workspaceId", d."nextAttemptAt", d."eventId", d."workspaceBusy",
    row_number() OVER (PARTITION BY d."endpointId" ORDER BY d."nextAttemptAt", d."eventId") + d.busy AS load, d.cap
  FROM due_now d
),
fair AS (
  SELECT r.id FROM (
    SELECT r.id, row_number() OVER (PARTITION BY r."workspaceId" ORDER BY r."nextAttemptAt", r."eventId") + r."workspaceBusy" AS load
    FROM ready r
    WHERE r.load <= r.cap
  ) r WHERE r.load <= $5::int
),
due AS (
  SELECT d.id, d."endpointId", d."workspaceId" FROM "WebhookDelivery" d
  WHERE d.id IN (SELECT id FROM fair)
    AND d.status IN ('pending', 'retrying') AND (d."leaseUntil" IS NULL OR d."leaseUntil" < ${NOW})
  ORDER BY d."nextAttemptAt", d."eventId"
  LIMIT $1
  FOR UPDATE SKIP LOCKED
),
claimed AS (
  UPDATE "WebhookDelivery" d SET "leaseUntil" = ${LEASE}
  FROM due
  WHERE d.id = due.id
  RETURNING d.id, d."endpointId", d."eventId", d.payload, d."failedAttempts", d."leaseUntil"
),
-- The fresh deliveries within the caps, counting what is busy and what "due" just took.
fresh_load AS (
  SELECT f.id, f.rank, w."backoffUntil",
    CASE WHEN w."failingSince" IS NULL THEN $4::int ELSE 1 END AS cap,
    row_number() OVER (PARTITION BY f."endpointId" ORDER BY f.rank)
      + COALESCE((SELECT b.n FROM busy b WHERE b."endpointId" = f."endpointId"), 0)
      + (SELECT count(*) FROM due WHERE due."endpointId" = f."endpointId") AS "endpointLoad",
    row_number() OVER (PARTITION BY f."workspaceId" ORDER BY f.rank)
      + COALESCE((SELECT bw.n FROM busy_workspace bw WHERE bw."workspaceId" = f."workspaceId"), 0)
      + (SELECT count(*) FROM due WHERE due."workspaceId" = f."workspaceId") AS "workspaceLoad"
  FROM fresh f JOIN "WebhookEndpoint" w ON w.id = f."endpointId"
),
leasable AS (
  SELECT l.id FROM (
    SELECT id, row_number() OVER (ORDER BY rank) AS n FROM fresh_load
    WHERE "endpointLoad" <= cap AND "workspaceLoad" <= $5::int
      AND ("backoffUntil" IS NULL OR "backoffUntil" <= ${NOW})
  ) l WHERE l.n <= $1 - (SELECT count(*) FROM due)
),
fanned AS (
  INSERT INTO "WebhookDelivery" (id, "workspaceId", "endpointId", "eventId", "eventType", "nextAttemptAt", "leaseUntil", "createdAt", "updatedAt")
  SELECT f.id, f."workspaceId", f."endpointId", f."eventId", f.type, f."createdAt",
    CASE WHEN f.id IN (SELECT id FROM leasable) THEN ${LEASE} END,
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
  e.type AS "eventType", ${LOGGED_BODY_SQL} AS "eventBody", NULL::timestamptz AS "nextDue", NULL::boolean AS "waitingForSlots"
FROM sending c
JOIN "WebhookEndpoint" w ON w.id = c."endpointId"
LEFT JOIN "Event" e ON e.id = c."eventId" AND c.payload IS NULL
UNION ALL
-- One more row, with no delivery: when the first delivery not claimed now becomes due or claimable
-- (its time, the end of a lease or of its endpoint's back-off), now when an endpoint has events beyond
-- this round's slice; and whether due deliveries wait for a slot (held back by a cap, or fresh ones
-- left unleased): those are claimed when attempts end, not at a time.
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  CASE WHEN EXISTS (SELECT 1 FROM advanced WHERE taken >= $3)
    THEN now()
    -- An endpoint with events to fan out was locked by another instance's round, which may have
    -- started before those events committed: look again shortly rather than at the next sweep.
    WHEN EXISTS (
      SELECT 1 FROM "WebhookEndpoint" w
      WHERE w.id NOT IN (SELECT id FROM behind)
        AND EXISTS (SELECT 1 FROM "Event" e WHERE e."workspaceId" = w."workspaceId" AND e.position > w."fannedOutTo")
    ) THEN now() + interval '100 milliseconds'
    -- Of the deliveries whose moment is still to come; those whose moment has passed were claimed
    -- now, wait for a slot (below), or were claimed by another instance meanwhile (SKIP LOCKED).
    ELSE LEAST(
      (SELECT min(m.at) AT TIME ZONE 'UTC' FROM (
        SELECT GREATEST(d."nextAttemptAt", COALESCE(d."leaseUntil", d."nextAttemptAt"),
          CASE WHEN d."eventType" = ${TEST} THEN d."nextAttemptAt" ELSE COALESCE(w."backoffUntil", d."nextAttemptAt") END) AS at
        FROM "WebhookDelivery" d JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
        WHERE d.status IN ('pending', 'retrying') AND (w.enabled OR d."eventType" = ${TEST})
      ) m WHERE m.at > ${NOW}),
      -- The fresh deliveries are not visible to the query above: those waiting for a back-off's end.
      (SELECT min("backoffUntil") AT TIME ZONE 'UTC' FROM fresh_load WHERE "backoffUntil" > ${NOW})
    )
  END,
  -- Waiting for a slot: due now but beyond a cap, or unleased fresh ones; an endpoint or workspace
  -- at its cap counts as having some (it is cheaper than looking, and only asks for an extra round).
  EXISTS (SELECT 1 FROM due_now WHERE id NOT IN (SELECT id FROM due))
    OR EXISTS (
      SELECT 1 FROM busy b JOIN "WebhookEndpoint" w ON w.id = b."endpointId"
      WHERE b.n >= CASE WHEN w."failingSince" IS NULL THEN $4::int ELSE 1 END
    )
    OR EXISTS (SELECT 1 FROM busy_workspace WHERE n >= $5::int)
    OR EXISTS (
      SELECT 1 FROM fresh_load
      WHERE ("backoffUntil" IS NULL OR "backoffUntil" <= ${NOW}) AND id NOT IN (SELECT id FROM leasable)
    )
ORDER BY "eventId" NULLS LAST`;

// Every finished attempt of a dispatcher's batch in one statement: the attempts logged (only those whose
// delivery still exists: deleting an endpoint, or its workspace, while an attempt is in flight deletes
// its deliveries, and that attempt has nothing left to belong to; a delete committing while the
// statement runs is the one case its snapshot misses, and record() then runs it again); each delivery's
// outcome applied if it still holds the claimed lease; then per endpoint, from the attempts that
// counted: a success ends its failing streak and its back-off; a failure starts a streak (or continues
// it) and backs the endpoint off for the wait of the schedule ($4, a JSON array of milliseconds; the
// last repeats) at its failures in a row. Endpoints whose state does not change are not written. The
// statement answers the enabled endpoints to disable: after a 410 Gone (the attempt's reason) or when
// their streak began at or before the cutoff ($2; $3's reason).
const RECORD_SQL = `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
    "attemptId" text, "deliveryId" text, "endpointId" text, "leaseUntil" timestamp(3),
    "attemptedAt" timestamp(3), "durationMs" int, "statusCode" int, error text, "responseBody" text,
    status text, "nextAttemptAt" timestamp(3), "endpointFailed" boolean, "disableEndpoint" text)
),
logged AS (
  INSERT INTO "WebhookAttempt" (id, "deliveryId", "attemptedAt", "durationMs", "statusCode", error, "responseBody")
  SELECT "attemptId", "deliveryId", "attemptedAt", "durationMs", "statusCode", error, "responseBody" FROM input i
  WHERE EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d.id = i."deliveryId")
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
    count(*) FILTER (WHERE "endpointFailed") AS failures,
    min("attemptedAt") FILTER (WHERE "endpointFailed") AS "firstFailure", max("disableEndpoint") AS gone
  FROM settled GROUP BY "endpointId"
),
judged AS (
  SELECT w.id, w."workspaceId",
    CASE WHEN p.recovered THEN NULL ELSE COALESCE(w."failingSince", p."firstFailure") END AS "failingSince",
    CASE WHEN p.recovered THEN 0 ELSE w."failuresInRow" + p.failures END AS "failuresInRow",
    CASE
      WHEN NOT w.enabled THEN NULL
      WHEN p.gone IS NOT NULL THEN p.gone
      WHEN NOT p.recovered AND COALESCE(w."failingSince", p."firstFailure") <= $2::timestamp(3) THEN $3
    END AS "disableWith"
  FROM per_endpoint p JOIN "WebhookEndpoint" w ON w.id = p."endpointId"
),
healthy AS (
  UPDATE "WebhookEndpoint" w SET "failingSince" = j."failingSince", "failuresInRow" = j."failuresInRow",
    "backoffUntil" = CASE WHEN j."failuresInRow" = 0 THEN NULL
      ELSE ${NOW} + COALESCE(($4::jsonb ->> (LEAST(j."failuresInRow", jsonb_array_length($4::jsonb)) - 1)::int)::bigint, 0)
        * interval '1 millisecond' END
  FROM judged j
  WHERE w.id = j.id
    AND (w."failingSince" IS DISTINCT FROM j."failingSince" OR w."failuresInRow" <> j."failuresInRow")
)
SELECT j.id, j."workspaceId", j."disableWith" AS reason FROM judged j WHERE j."disableWith" IS NOT NULL`;

interface ClaimedRow {
  /** Null on the last row, which carries only `nextDue` and `waitingForSlots`. */
  id: string | null;
  nextDue: Date | null;
  waitingForSlots: boolean | null;
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

/** The dispatcher's store: single statements on the raw SQL executor; disabling through the writer. */
export function createDeliveryStore(
  sql: SqlExecutor,
  prisma: PrismaClient,
  mediaUrl: (storageKey: string) => string,
): DeliveryStore {
  return {
    async claim(limit, leaseMs, caps) {
      const rows = await writeStatement<ClaimedRow>(
        sql,
        CLAIM_SQL,
        limit,
        leaseMs,
        FAN_OUT_SLICE,
        caps.endpoint,
        caps.workspace,
      );
      const last = rows.at(-1);
      return {
        deliveries: rows
          .filter((row): row is ClaimedRow & { id: string } => row.id !== null)
          .map((row) => claimedDelivery(row, mediaUrl)),
        nextDueAt: last?.id === null ? last.nextDue : null,
        waitingForSlots: last?.id === null && last.waitingForSlots === true,
      };
    },

    async record(outcomes, { failingCutoff, backoffMs }) {
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
      const reason = `Every delivery failed since before ${failingCutoff.toISOString()} (for ${failingFor(failingCutoff)})`;
      const params = [JSON.stringify(rows), failingCutoff.toISOString(), reason, JSON.stringify(backoffMs)];
      type ToDisable = { id: string; workspaceId: string; reason: string };
      const toDisable = await writeStatement<ToDisable>(sql, RECORD_SQL, ...params).catch(
        (error: unknown) => {
          // A delivery deleted after the statement's snapshot was taken (its endpoint deleted that very
          // moment): the next snapshot no longer sees it, so the statement drops that attempt.
          if (!isForeignKeyViolation(error)) throw error;
          return writeStatement<ToDisable>(sql, RECORD_SQL, ...params);
        },
      );
      if (toDisable.length > 0) await disableFailingEndpoints(prisma, toDisable);
    },

    async release(deliveries) {
      if (deliveries.length === 0) return;
      const held = deliveries.map(({ id, leaseUntil }) => ({ id, leaseUntil: leaseUntil.toISOString() }));
      await writeStatement(sql, RELEASE_SQL, JSON.stringify(held));
    },
  };
}

/** The driver's error for a row referring to one that is gone (PostgreSQL's foreign_key_violation). */
function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23503";
}

/** "3 days", "24 hours", "90 seconds": how long the disabling window is, for the reason. */
function failingFor(cutoff: Date): string {
  const seconds = Math.round((Date.now() - cutoff.getTime()) / 1_000);
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} hours`;
  return `${seconds} seconds`;
}

function claimedDelivery(
  row: ClaimedRow & { id: string },
  mediaUrl: (storageKey: string) => string,
): ClaimedDelivery {
  // The event's data as stored: imported records name their files relative (media-references.ts), and
  // a receiver gets them absolute, as the API's reads give them.
  const logged =
    row.eventType !== null && row.eventBody !== null
      ? {
          id: row.eventId,
          type: row.eventType,
          body: absoluteMediaReferencesInJsonText(row.eventBody, mediaUrl),
        }
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
