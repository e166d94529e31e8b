// A write whose events no webhook endpoint is sent (a bulk import's `--no-webhooks`: import-batch.ts
// passes this as the writer's afterAppend hook, writer.ts). The events stay in the log — the change feed, caches and subscriptions need them —
// so the endpoints' cursors (webhook-fan-out.ts) must move past them without deliveries, while every
// event written before them is still delivered as usual.
//
// Runs at the writer's hook point, after the append: the append holds the log's advisory lock until
// COMMIT (change-log.ts), so no other write's event can come after this write's. Each endpoint of the
// workspace is fanned out to the head first (the events before this write get their deliveries, under
// the endpoint's current settings), then the deliveries just made for this write's own events are
// removed again: those are the events whose row this transaction inserted (xmin is the current
// transaction id), and the deliveries this same statement's predecessor made (also this transaction's).

import type { Change } from "../change.ts";
import type { WriteClient } from "../writer.ts";
import { fanOutEndpoint } from "./webhook-fan-out.ts";

const ENDPOINTS_SQL = `SELECT id FROM "WebhookEndpoint" WHERE "workspaceId" = ANY($1::text[]) ORDER BY id`;

const REMOVE_OWN_DELIVERIES_SQL = `DELETE FROM "WebhookDelivery" d
  USING "Event" e
  WHERE d."endpointId" = ANY($1::text[]) AND d.xmin = pg_current_xact_id()::xid
    AND e.id = d."eventId" AND e.xmin = pg_current_xact_id()::xid`;

/** The writer's afterAppend hook (writer.ts): no delivery is left queued by the write. */
export async function withholdDeliveries(tx: WriteClient, changes: readonly Change[]): Promise<number> {
  const workspaceIds = [...new Set(changes.map((change) => change.workspaceId))];
  const endpoints = await tx.$queryRawUnsafe<{ id: string }[]>(ENDPOINTS_SQL, workspaceIds);
  if (endpoints.length === 0) return 0;
  // In id order, as every fan-out locks endpoints: two writers never wait on each other's rows.
  for (const endpoint of endpoints) await fanOutEndpoint(tx, endpoint.id);
  await tx.$executeRawUnsafe(
    REMOVE_OWN_DELIVERIES_SQL,
    endpoints.map((endpoint) => endpoint.id),
  );
  return 0;
}
