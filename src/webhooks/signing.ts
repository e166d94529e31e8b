// Webhook secrets and the signed headers of a delivery. Every delivery carries two header families so
// that both kinds of receivers can verify it without configuration:
// - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
//   `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>` over "{id}.{timestamp}.{body}"
//   keyed with the secret's base64-decoded bytes. During a secret rotation every active secret signs, so
//   a receiver that still holds the previous secret keeps verifying (the specification allows several
//   signatures in one header).
// - Marble's: `x-marble-event`, `x-marble-event-id`, `x-marble-delivery-id`, `x-marble-timestamp` and
//   `x-marble-signature: sha256=<hex HMAC-SHA256 of the body>` keyed with the whole secret string. Its
//   format holds one signature, so it is made with the current secret only.
// The body is signed exactly as it will be sent: callers serialize once and send that same string.
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** Random bytes in a new secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new endpoint secret in the Standard Webhooks form, `whsec_<base64 of 32 random bytes>`. */
export function generateEndpointSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** The HMAC key Standard Webhooks derives from a secret: the base64 after the prefix, decoded. */
function standardKeyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("a webhook secret starts with whsec_");
  return Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
}

export interface SignatureInput {
  /** The event's id: `webhook-id` and `x-marble-event-id`, the same on every retry of the event. */
  eventId: string;
  /** The event's type, e.g. `post.published`: `x-marble-event`. */
  eventType: string;
  /** This delivery's id (one per event and endpoint): `x-marble-delivery-id`. */
  deliveryId: string;
  /** When this attempt is signed; sent as unix seconds. */
  timestamp: Date;
  /** The exact body string that will be sent. */
  body: string;
  /** The active secrets, the current one first (a rotated-out one follows while its overlap lasts). */
  secrets: readonly [string, ...string[]];
}

/** Unix seconds, as both header families send the timestamp. */
export function unixSeconds(time: Date): number {
  return Math.floor(time.getTime() / 1000);
}

/** `v1,<base64>` for one secret, as in Standard Webhooks' `webhook-signature`. */
export function standardSignature(secret: string, eventId: string, timestamp: number, body: string): string {
  const digest = createHmac("sha256", standardKeyOf(secret))
    .update(`${eventId}.${timestamp}.${body}`, "utf8")
    .digest("base64");
  return `v1,${digest}`;
}

/** `sha256=<hex>` as in Marble's `x-marble-signature`, keyed with the whole secret string. */
export function marbleSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** Every signed header of one delivery attempt (content-type and the like are the sender's). */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  const timestamp = unixSeconds(input.timestamp);
  const [current] = input.secrets;
  return {
    "webhook-id": input.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": input.secrets
      .map((secret) => standardSignature(secret, input.eventId, timestamp, input.body))
      .join(" "),
    "x-marble-event": input.eventType,
    "x-marble-event-id": input.eventId,
    "x-marble-delivery-id": input.deliveryId,
    "x-marble-timestamp": String(timestamp),
    "x-marble-signature": marbleSignature(current, input.body),
  };
}
