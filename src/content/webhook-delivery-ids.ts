// Names shared by the statements that make webhook deliveries (the change log's fan-out, replays, test
// events) and by the instances that listen for them.

/**
 * A delivery's id from its event's and endpoint's: `dlv_` + 24 hex characters of their MD5 (not a
 * security use: a stable, compact name). The same pair always names the same delivery, which is what
 * makes the fan-out idempotent and lets a replay find the delivery it restarts.
 */
export function deliveryIdSql(eventIdSql: string, endpointIdSql: string): string {
  return `'dlv_' || substr(md5(${eventIdSql} || ':' || ${endpointIdSql}), 1, 24)`;
}

/** NOTIFY channel for "deliveries are due", followed by the schema's name (one channel per schema). */
export const WEBHOOK_CHANNEL_PREFIX = "webhook_deliveries:";
