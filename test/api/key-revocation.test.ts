// docs/operations.md's promise ("Workspaces and API keys"), checked with two real server processes on
// one PostgreSQL and one Redis: a key revoked through one instance is refused by the other at once (its revocation NOTIFYs every instance,
// which drop their cached keys), even when the other had just checked (and cached) it. The embedded database belongs to one process, so this runs in the
// PostgreSQL mode of the suite.
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";

const group = instanceGroup("revocation");
afterAll(() => group.stop());

async function startInstance(): Promise<string> {
  return (await group.start()).url;
}

describe.skipIf(storageMode !== "postgres")("key revocation across instances", () => {
  it("a key revoked on instance A is refused by instance B at once (well under a second)", async () => {
    // One after the other: both would apply the migrations on start, which is safe but slower at once.
    const a = await startInstance();
    const b = await startInstance();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const created = await (
      await fetch(`${a}/admin/workspaces`, { method: "POST", headers: admin, body: '{"name":"Revoked"}' })
    ).json();
    const key: string = created.publicKey;
    const keys = await (
      await fetch(`${a}/admin/workspaces/${created.workspace.id}/keys`, { headers: admin })
    ).json();
    const keyId: string = keys.keys.find((k: { kind: string }) => k.kind === "public").id;

    const readOnB = async () => (await fetch(`${b}/v1/posts`, { headers: { authorization: key } })).status;
    // B checks the key just before the revocation: its cache holds it as valid from now on.
    expect(await readOnB()).toBe(200);
    const revoked = await fetch(`${a}/admin/keys/${keyId}/revoke`, { method: "POST", headers: admin });
    expect(revoked.status).toBe(200);
    const revokedAt = performance.now();
    // At once on the instance that revoked it.
    expect((await fetch(`${a}/v1/posts`, { headers: { authorization: key } })).status).toBe(401);

    let status = await readOnB();
    while (status === 200 && performance.now() - revokedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await readOnB();
    }
    const elapsedMs = performance.now() - revokedAt;
    console.log(`revoked key refused by the other instance after ${Math.round(elapsedMs)} ms`);
    expect(status).toBe(401);
    expect(elapsedMs).toBeLessThan(1_000);
  }, 120_000);
});
