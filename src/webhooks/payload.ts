// What a receiver gets as the body of a delivery. The same for every attempt of a delivery, and signed
// exactly as serialized here (signing.ts).

/** An event as webhooks carry it: the change log's row, or a webhook.test event. */
export interface WebhookEvent {
  id: string;
  type: string;
  createdAt: Date;
  workspaceId: string;
  data: unknown;
  /** A post's events: the translations the change concerns (the change log's `locales`). */
  locales?: readonly string[];
}

/** An event ready to send: what the headers name, and the body exactly as it is sent and signed. */
export interface OutgoingEvent {
  id: string;
  type: string;
  body: string;
}

/**
 * `{"id", "type", "event", "createdAt", "workspaceId", "data"}`, and `locales` after `data` for a post's
 * events: `event` repeats `type` for receivers
 * written for Marble, whose payloads name it so. The change log's events are serialized the same way by
 * the claim statement itself (src/content/deliveries/webhook-deliveries.ts), `data` as PostgreSQL prints it.
 */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    event: event.type,
    createdAt: event.createdAt.toISOString(),
    workspaceId: event.workspaceId,
    data: event.data,
    ...(event.locales?.length ? { locales: event.locales } : {}),
  });
}

export function outgoing(event: WebhookEvent): OutgoingEvent {
  return { id: event.id, type: event.type, body: webhookBody(event) };
}
