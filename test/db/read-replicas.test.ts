// Read replicas with real streaming replication (issue 58): a PostgreSQL 15 primary and replica of this
// test's own (replication-cluster.ts), two service instances on them. Reads go to the replica only when
// it has replayed what they must show; a replica that stops mid-load fails no request.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLsn } from "../../src/db/wal-position.ts";
import { startReplicaInstance } from "../helpers/replica-instances.ts";
import { type ReplicationCluster, startReplicationCluster } from "../helpers/replication-cluster.ts";
import type { TestApp, TestWorkspace } from "../helpers/test-app.ts";
import { storageMode } from "../helpers/test-database.ts";

const POSTGRES_15 = "/usr/lib/postgresql/15/bin/initdb";
const METRICS_TOKEN = "metrics-token-for-replica-tests";

/** Reads per target and fallbacks, from the instance's /metrics. */
async function readCounts(app: TestApp) {
  const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  const count = (pattern: RegExp) =>
    [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
  return {
    primary: count(/^db_reads_total\{target="primary"\} (\d+)/gm),
    replica: count(/^db_reads_total\{target="127\.0\.0\.1:[^"]+"\} (\d+)/gm),
    behind: count(/^db_replica_fallbacks_total\{reason="behind"\} (\d+)/gm),
    unavailable: count(/^db_replica_fallbacks_total\{reason="unavailable"\} (\d+)/gm),
    lagSeconds: Number(
      /^db_replica_lag_seconds\{replica="[^"]+"\} ([\d.e-]+)/m.exec(text)?.[1] ?? Number.NaN,
    ),
  };
}

// The suite's embedded run has no PostgreSQL programs to speak of; these tests start their own servers.
describe.skipIf(storageMode !== "postgres" || !existsSync(POSTGRES_15))(
  "read replicas (PostgreSQL mode only: the tests start their own PostgreSQL 15 primary and replica)",
  { timeout: 60_000 },
  () => {
    let cluster: ReplicationCluster;
    let a: TestApp;
    let b: TestApp;
    let ws: TestWorkspace;
    const schema = `test_${randomBytes(6).toString("hex")}`;
    const instance = (maxLagMs?: number) =>
      startReplicaInstance(cluster, {
        schema,
        metricsToken: METRICS_TOKEN,
        ...(maxLagMs ? { maxLagMs } : {}),
      });

    /** Until the replica has replayed all the primary has, and both instances' routers have seen it. */
    const caughtUp = async () => {
      await cluster.waitForReplay();
      await Promise.all([a.db.replicas?.pollNow(), b.db.replicas?.pollNow()]);
    };

    const createTag = async (app: TestApp, slug: string) => {
      const res = await fetch(`${app.url}/v1/tags`, {
        method: "POST",
        headers: { authorization: ws.privateKey, "content-type": "application/json" },
        body: JSON.stringify({ name: slug, slug }),
      });
      expect(res.status).toBe(201);
      return res.headers.get("write-position");
    };
    const tagSlugs = async (app: TestApp, headers: Record<string, string> = {}) => {
      const res = await fetch(`${app.url}/v1/tags?limit=100`, {
        headers: { authorization: ws.publicKey, ...headers },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { tags: { slug: string }[] }).tags.map((tag) => tag.slug);
    };

    const graphql = (app: TestApp, query: string, key = ws.publicKey) =>
      fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
    const graphqlTagSlugs = async (app: TestApp) => {
      const body = (await (await graphql(app, "{ tags(limit: 100) { items { slug } } }")).json()) as {
        data: { tags: { items: { slug: string }[] } };
      };
      return body.data.tags.items.map((tag) => tag.slug);
    };

    beforeAll(async () => {
      cluster = await startReplicationCluster();
      a = await instance();
      b = await instance();
      ws = await a.workspace("Replicas");
      await caughtUp();
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      await cluster?.close();
    });

    it("with replay paused, reads go to the primary and see a fresh write; caught up, to the replica", async () => {
      await createTag(a, "before-pause");
      await caughtUp();
      const start = await readCounts(a);
      expect(await tagSlugs(a)).toContain("before-pause");
      const onReplica = await readCounts(a);
      expect(onReplica.replica).toBe(start.replica + 1);

      await cluster.pauseReplay();
      try {
        await createTag(a, "while-paused");
        expect(await tagSlugs(a)).toContain("while-paused");
        // The other instance never saw the write, and still reads it: the primary's position is asked.
        expect(await tagSlugs(b)).toContain("while-paused");
        const paused = await readCounts(a);
        expect(paused.replica).toBe(onReplica.replica);
        expect(paused.primary).toBe(onReplica.primary + 1);
        expect(paused.behind).toBe(onReplica.behind + 1);
        // GraphQL queries follow the same rule.
        expect(await graphqlTagSlugs(a)).toContain("while-paused");
        expect((await readCounts(a)).replica).toBe(onReplica.replica);
      } finally {
        await cluster.resumeReplay();
      }
      await caughtUp();
      expect(await tagSlugs(a)).toContain("while-paused");
      expect((await readCounts(a)).replica).toBe(onReplica.replica + 1);
      expect(await graphqlTagSlugs(a)).toContain("while-paused");
      expect((await readCounts(a)).replica).toBe(onReplica.replica + 2);
      // A mutation stays on the primary, its read-back included.
      const mutation = await graphql(
        a,
        'mutation { createTag(input: { name: "M", slug: "by-mutation" }) { slug } }',
        ws.privateKey,
      );
      expect(mutation.headers.get("write-position")).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      expect((await readCounts(a)).replica).toBe(onReplica.replica + 2);
    });

    it("a client that writes on instance A and reads on instance B with Write-Position sees its write", async () => {
      await cluster.pauseReplay();
      try {
        const position = await createTag(a, "read-your-write");
        expect(parseLsn(position)).not.toBeNull();
        expect(await tagSlugs(b, { "write-position": position as string })).toContain("read-your-write");
      } finally {
        await cluster.resumeReplay();
      }
      await caughtUp();
      const before = await readCounts(b);
      const position = await createTag(a, "read-your-write-2");
      await caughtUp();
      expect(await tagSlugs(b, { "write-position": position as string })).toContain("read-your-write-2");
      expect((await readCounts(b)).replica).toBe(before.replica + 1);
    });

    it("a replica lagging more than DATABASE_REPLICA_MAX_LAG_MS is left out until it catches up", async () => {
      const strict = await instance(300);
      try {
        await strict.db.replicas?.pollNow();
        await cluster.pauseReplay();
        try {
          await createTag(a, "lagging");
          // The primary moved on 300 ms ago or more while the replica stood still.
          await new Promise((resolve) => setTimeout(resolve, 700));
          await strict.db.replicas?.pollNow();
          const before = await readCounts(strict);
          expect(before.lagSeconds).toBeGreaterThan(0.3);
          expect(await tagSlugs(strict)).toContain("lagging");
          const after = await readCounts(strict);
          expect(after.unavailable).toBe(before.unavailable + 1);
          expect(after.replica).toBe(before.replica);
        } finally {
          await cluster.resumeReplay();
        }
        await cluster.waitForReplay();
        await strict.db.replicas?.pollNow();
        const caught = await readCounts(strict);
        expect(caught.lagSeconds).toBe(0);
        expect(await tagSlugs(strict)).toContain("lagging");
        expect((await readCounts(strict)).replica).toBe(caught.replica + 1);
      } finally {
        await strict.close();
      }
    });

    // Last: the replica does not come back.
    it("the replica stopped (-m immediate) in the middle of a read load fails no request", async () => {
      await caughtUp();
      const before = await readCounts(a);
      let failed = 0;
      let answered = 0;
      let stopping = false;
      const reader = async () => {
        while (!stopping) {
          const res = await fetch(`${a.url}/v1/tags?limit=100`, {
            headers: { authorization: ws.publicKey },
          }).catch(() => null);
          if (res?.status === 200 && ((await res.json()) as { tags: unknown[] }).tags.length > 0) answered++;
          else failed++;
        }
      };
      const readers = Array.from({ length: 4 }, reader);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const onReplicaBeforeStop = (await readCounts(a)).replica - before.replica;
      await cluster.stopReplica();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      stopping = true;
      await Promise.all(readers);
      expect(onReplicaBeforeStop).toBeGreaterThan(0);
      expect(failed).toBe(0);
      expect(answered).toBeGreaterThan(20);
      const after = await readCounts(a);
      expect(after.primary).toBeGreaterThan(before.primary);
    });
  },
);
