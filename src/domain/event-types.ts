// The change log's event types: what a client may ask for in `types` and what a webhook endpoint may
// subscribe to. Workspace changes are not content and record no event; of webhook endpoint changes only
// the service's disabling of a failing one does; API keys record their audit trail (made, rotated,
// revoked, expired; never a secret). Webhook and API key events are for private keys only.

export const EVENT_TYPES = [
  "post.created",
  "post.updated",
  "post.published",
  "post.unpublished",
  "post.deleted",
  "category.created",
  "category.updated",
  "category.deleted",
  "tag.created",
  "tag.updated",
  "tag.deleted",
  "author.created",
  "author.updated",
  "author.deleted",
  "media.uploaded",
  "media.updated",
  "media.deleted",
  "field.created",
  "field.updated",
  "field.deleted",
  "locale.created",
  "locale.updated",
  "locale.deleted",
  "webhook.disabled",
  "api_key.created",
  "api_key.rotated",
  "api_key.revoked",
  "api_key.expired",
] as const;

/** Event types only keys that read drafts see (settings of the workspace, not content for websites). */
export function isPrivateEventType(type: string): boolean {
  return type.startsWith("webhook.") || type.startsWith("api_key.");
}
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
