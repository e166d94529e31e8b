// Subscriptions across real instances on one PostgreSQL: a subscriber connected to instance B hears of a
// write made through instance A within a second (the append's NOTIFY wakes B's change stream), and a
// key revoked through A ends that key's streams on both instances within a second (the keys' NOTIFY), and
// a key made on A with an expiry ends its stream on B when the expiry passes.
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, adminWorkspace, instanceGroup } from "../helpers/server-instances.ts";
import { subscribe } from "../helpers/sse-subscription.ts";
import { storageMode } from "../helpers/test-database.ts";

const group = instanceGroup("subscriptions");
afterAll(() => group.stop());

describe.skipIf(storageMode !== "postgres")("subscriptions across instances", () => {
  it("a subscriber on B receives each change written on A within 1 s", async () => {
    const a = await group.start();
    const b = await group.start();
    const ws = await adminWorkspace(a, "Live across");
    const live = await subscribe(b.url, ws.publicKey, "subscription { contentChanged { type slug } }");
    try {
      const delays: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${a.url}/v1/tags`, {
          method: "POST",
          headers: { authorization: ws.privateKey, "content-type": "application/json" },
          body: JSON.stringify({ name: `Across ${i}`, slug: `across-${i}` }),
        });
        expect(res.status).toBe(201);
        const answered = performance.now();
        await live.waitFor((r) => r.length === i + 1, 1_000);
        delays.push(performance.now() - answered);
      }
      expect(
        live.received.map((r) => (r.data?.contentChanged as { slug: string } | undefined)?.slug),
      ).toEqual(Array.from({ length: 10 }, (_, i) => `across-${i}`));
      expect(Math.max(...delays)).toBeLessThan(1_000);
    } finally {
      live.close();
    }
  });

  it("a key made through A that expires while its stream is open on B ends that stream, with the reason", async () => {
    const a = await group.start();
    const b = await group.start();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const ws = await adminWorkspace(a, "Expiring live");
    const expiresAt = new Date(Date.now() + 2_000);
    const made = await fetch(`${a.url}/admin/workspaces/${ws.workspace.id}/keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ kind: "private", scopes: ["drafts:read"], expiresAt: expiresAt.toISOString() }),
    });
    expect(made.status).toBe(201);
    const { key } = await made.json();
    const onB = await subscribe(
      b.url,
      key,
      'subscription { contentChanged(types: ["tag.created"]) { type slug } }',
    );
    try {
      await onB.waitFor((r) => r.length === 1, 4_000);
      const endedLateBy = Date.now() - expiresAt.getTime();
      expect(onB.received[0]?.errors?.[0]).toMatchObject({
        extensions: { code: "UNAUTHENTICATED", reason: "API_KEY_EXPIRED" },
      });
      console.log(`expired key's stream on B ended ${endedLateBy} ms after the expiry`);
      expect(endedLateBy).toBeGreaterThanOrEqual(0);
      expect(endedLateBy).toBeLessThan(1_000);
      const again = await fetch(`${b.url}/v1/posts`, { headers: { authorization: key } });
      expect(again.status).toBe(401);
      expect((await again.json()).message).toContain(expiresAt.toISOString());
    } finally {
      onB.close();
    }
  });

  it("revoking a key through A ends its streams on A and on B within 1 s, with the reason; drafts never follow", async () => {
    const a = await group.start();
    const b = await group.start();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const ws = await adminWorkspace(a, "Revoked live");
    const keys = await (
      await fetch(`${a.url}/admin/workspaces/${ws.workspace.id}/keys`, { headers: admin })
    ).json();
    const privateKeyId: string = keys.keys.find((k: { kind: string }) => k.kind === "private").id;
    // A second private key keeps writing after the first is revoked.
    const writer = await (
      await fetch(`${a.url}/admin/workspaces/${ws.workspace.id}/keys`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ kind: "private" }),
      })
    ).json();
    // Content events only: the revocation's own audit event (api_key.revoked) may come before the end.
    const query =
      'subscription { contentChanged(types: ["tag.created", "tag.updated", "post.created"]) { type slug } }';
    const onA = await subscribe(a.url, ws.privateKey, query);
    const onB = await subscribe(b.url, ws.privateKey, query);
    try {
      const revoked = await fetch(`${a.url}/admin/keys/${privateKeyId}/revoke`, {
        method: "POST",
        headers: admin,
      });
      expect(revoked.status).toBe(200);
      const revokedAt = performance.now();
      for (const live of [onA, onB]) {
        await live.waitFor((r) => r.length === 1, 1_000);
        expect(live.received[0]?.errors?.[0]).toMatchObject({
          extensions: { code: "UNAUTHENTICATED", reason: "API_KEY_REVOKED" },
        });
      }
      const endedAfter = performance.now() - revokedAt;
      console.log(`revoked key's streams ended on both instances after ${Math.round(endedAfter)} ms`);
      expect(endedAfter).toBeLessThan(1_000);
      const deadline = Date.now() + 1_000;
      while (!(onA.completed() && onB.completed()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect([onA.completed(), onB.completed()]).toEqual([true, true]);

      // A draft written afterwards reaches neither.
      const draft = await fetch(`${a.url}/v1/tags`, {
        method: "POST",
        headers: { authorization: writer.key, "content-type": "application/json" },
        body: JSON.stringify({ name: "After revocation", slug: "after-revocation" }),
      });
      expect(draft.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([onA.received.length, onB.received.length]).toEqual([1, 1]);
    } finally {
      onA.close();
      onB.close();
    }
  });
});
