// The vocabulary of webhook deliveries, shared by the dispatcher, the store and both doors.

/**
 * pending: not tried yet (or restarted by a retry or replay); retrying: failed, another attempt is
 * scheduled; succeeded: a 2xx came back; failed: the schedule is spent, the receiver answered 410 Gone,
 * or the event left the change log before it could be sent.
 */
export const DELIVERY_STATUSES = ["pending", "retrying", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The event `POST /v1/webhooks/{id}/test` sends; it is not in the change log. */
export const TEST_EVENT_TYPE = "webhook.test";

/** How much of a receiver's response body an attempt keeps for the delivery log. */
export const RESPONSE_BODY_LIMIT_BYTES = 2_048;

/** Events one replay request re-delivers at most; a client continues from the returned cursor. */
export const MAX_REPLAY_EVENTS = 1_000;
