import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateEndpointSecret, signatureHeaders } from "../../src/webhooks/signing.ts";

// A body with non-ASCII text and escapes: the signature covers the exact bytes sent.
const body = JSON.stringify({
  id: "evt_1",
  type: "post.published",
  event: "post.published",
  createdAt: "2025-01-02T03:04:05.000Z",
  workspaceId: "ws_1",
  data: { title: "Crème brûlée — “quoted” 🍮", html: "<p>a &amp; b</p>" },
});

function headersFor(secrets: readonly [string, ...string[]], signedBody = body) {
  return signatureHeaders({
    eventId: "evt_1",
    eventType: "post.published",
    deliveryId: "dlv_1",
    timestamp: new Date(),
    body: signedBody,
    secrets,
  });
}

/** A Marble receiver's check, with nothing but node:crypto. */
function marbleVerifies(secret: string, receivedBody: string, header: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(receivedBody).digest("hex")}`);
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

describe("webhook secrets", () => {
  it("are whsec_ and the base64 of at least 24 random bytes, never repeating", () => {
    const secrets = new Set(Array.from({ length: 500 }, generateEndpointSecret));
    expect(secrets.size).toBe(500);
    for (const secret of [...secrets].slice(0, 20)) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(24);
    }
  });
});

describe("delivery signature headers", () => {
  it("carry the event's id, type, delivery id and the unix-seconds timestamp in both families", () => {
    const headers = headersFor([generateEndpointSecret()]);
    expect(headers["webhook-id"]).toBe("evt_1");
    expect(headers["x-marble-event-id"]).toBe("evt_1");
    expect(headers["x-marble-event"]).toBe("post.published");
    expect(headers["x-marble-delivery-id"]).toBe("dlv_1");
    expect(headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(headers["x-marble-timestamp"]).toBe(headers["webhook-timestamp"]);
  });

  it("are verified by the standardwebhooks package", () => {
    const secret = generateEndpointSecret();
    const headers = headersFor([secret]);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("sign with every active secret during a rotation, each verifiable on its own", () => {
    const current = generateEndpointSecret();
    const previous = generateEndpointSecret();
    const headers = headersFor([current, previous]);
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateEndpointSecret()).verify(body, headers)).toThrow();
  });

  it("carry Marble's sha256= signature of the body keyed with the whole current secret", () => {
    const current = generateEndpointSecret();
    const previous = generateEndpointSecret();
    const headers = headersFor([current, previous]);
    expect(headers["x-marble-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(marbleVerifies(current, body, headers["x-marble-signature"]!)).toBe(true);
    expect(marbleVerifies(previous, body, headers["x-marble-signature"]!)).toBe(false);
  });

  it("fail both checks when the body changed after signing", () => {
    const secret = generateEndpointSecret();
    const headers = headersFor([secret]);
    const changed = body.replace("brûlée", "brulee");
    expect(() => new Webhook(secret).verify(changed, headers)).toThrow();
    expect(marbleVerifies(secret, changed, headers["x-marble-signature"]!)).toBe(false);
    // Re-serializing the same JSON differently is a change too: receivers must verify the raw body.
    expect(() => new Webhook(secret).verify(JSON.stringify(JSON.parse(body), null, 1), headers)).toThrow();
  });
});
