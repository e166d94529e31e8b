// Every cursor the service reads back is the client's input: a well-formed cursor holding a value the
// database cannot take (a position past a bigint, a date past year 9999, a NUL in an id) is the
// client's mistake, 400 in the contract's error shape — never a 500 from the database refusing it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventLogScope } from "../../src/graphql/cursors/event-cursors.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  // Endpoints point at a closed local port; without background work nothing is sent anyway.
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  ws = await app.workspace("Cursor values");
});
afterAll(() => app?.close());

const PAST_BIGINT = "9999999999999999999";
const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64url");

/** A cursor's JSON payload, as the service issued it (the same encoding, read back). */
function decode(cursor: string): unknown[] {
  return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
}

/** 400 in the contract's error shape; `field` when the cursor itself is refused (a NUL is refused by
 * the service-wide guard first, use-null-byte-guard.ts, which names no field). */
function expectBadCursor(res: { status: number; body: Record<string, unknown> }, field?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ error: "Validation failed", message: expect.any(String) });
  if (field) expect(res.body.details).toMatchObject([{ field }]);
}

describe("cursors holding values the database cannot take answer 400", () => {
  it("/v1/changes: an id with a NUL; a position past a bigint (format 1)", async () => {
    for (const key of [ws.publicKey, ws.privateKey]) {
      const scope = decode((await app.request("GET", "/v1/changes", { key })).body.nextCursor)[1];
      // [version, scope, phase, event id, count, record id, issued at]
      const withNul = [2, scope, "s", null, 0, "c\0", Date.now()];
      expectBadCursor(await app.request("GET", `/v1/changes?since=${encode(withNul)}`, { key }));
      const notAnEvent = [2, scope, "l", "evt_x\0", 0, null, Date.now()];
      expectBadCursor(await app.request("GET", `/v1/changes?since=${encode(notAnEvent)}`, { key }), "since");
      // Format 1 held the log's global position (still read, changes-bounds.test.ts).
      const formatOne = [1, scope, "l", PAST_BIGINT, 0, null, Date.now()];
      expectBadCursor(await app.request("GET", `/v1/changes?since=${encode(formatOne)}`, { key }), "since");
    }
  });

  it("/v1/events and webhook replay: a position past a bigint", async () => {
    const cursor = encode([1, eventLogScope(ws.id), PAST_BIGINT, Date.now()]);
    expectBadCursor(await app.request("GET", `/v1/events?after=${cursor}`, { key: ws.privateKey }), "after");
    const endpoint = await app.request("POST", "/v1/webhooks", {
      key: ws.privateKey,
      body: { url: "http://127.0.0.1:9/replay", events: ["*"] },
    });
    expect(endpoint.status).toBe(201);
    const replay = await app.request("POST", `/v1/webhooks/${endpoint.body.webhook.id}/replay`, {
      key: ws.privateKey,
      body: { after: cursor },
    });
    expectBadCursor(replay, "after");
  });

  it("webhook deliveries: a date past year 9999, an id with a NUL", async () => {
    const endpoint = await app.request("POST", "/v1/webhooks", {
      key: ws.privateKey,
      body: { url: "http://127.0.0.1:9/deliveries", events: ["*"] },
    });
    const id = endpoint.body.webhook.id as string;
    const read = (payload: unknown[]) =>
      app.request("GET", `/v1/webhooks/${id}/deliveries?after=${encode(payload)}`, { key: ws.privateKey });
    expectBadCursor(await read([1, id, 1e20, "d"]), "after");
    // A safe integer, but past the last moment a Date (and the database) can hold.
    expectBadCursor(await read([1, id, 8_700_000_000_000_000, "d"]), "after");
    expectBadCursor(await read([1, id, Date.now(), "d\0"]));
  });
});
