// Read replicas with the response caches on (issue 58): "a miss computed on a replica is cached under
// the head it reflects" (docs/read-replicas.md). A PostgreSQL 15 primary and streaming replica of this
// test's own and two instances on them, with CACHE=memory (each its own) and with CACHE=redis (shared).
// Every read goes through both doors (REST's cached routes, /graphql) of both instances; every one must
// show the last acknowledged write, whether it was computed on the primary, on the replica, or served
// from a cache entry (X-Cache: HIT) — and the hits after the replica caught up must be its answers.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReplicaInstance } from "../helpers/replica-instances.ts";
import { type ReplicationCluster, startReplicationCluster } from "../helpers/replication-cluster.ts";
import type { TestApp, TestWorkspace } from "../helpers/test-app.ts";
import { storageMode } from "../helpers/test-database.ts";

const POSTGRES_15 = "/usr/lib/postgresql/15/bin/initdb";
const METRICS_TOKEN = "metrics-token-for-replica-tests";
const SLUG = "watched";

type Door = "rest-post" | "rest-list" | "graphql";
const DOORS: Door[] = ["rest-post", "rest-list", "graphql"];

/** One read as the client saw it, and where the instance computed it. */
interface Seen {
  title: string | undefined;
  cache: string | null;
  onReplica: boolean;
}

async function replicaReads(app: TestApp): Promise<number> {
  const text = await (
    await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  return [...text.matchAll(/^db_reads_total\{target="127\.0\.0\.1:[^"]+"\} (\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

// The shared tier needs Redis: the suite's PostgreSQL mode has it (REDIS_URL).
const modes = ["memory", ...(process.env.REDIS_URL ? ["redis" as const] : [])] as const;

describe.skipIf(storageMode !== "postgres" || !existsSync(POSTGRES_15))(
  "read replicas with the response caches on (PostgreSQL mode only: the test starts its own primary and replica)",
  { timeout: 60_000 },
  () => {
    let cluster: ReplicationCluster;
    const schema = `test_${randomBytes(6).toString("hex")}`;
    const instance = (cache: "memory" | "redis") =>
      startReplicaInstance(cluster, { schema, metricsToken: METRICS_TOKEN, cache });

    beforeAll(async () => {
      cluster = await startReplicationCluster();
    });
    afterAll(async () => {
      await cluster?.close();
    });

    it.each(modes)(
      "CACHE=%s: no answer, computed or cached, is older than the last acknowledged write",
      async (mode) => {
        const a = await instance(mode);
        const b = await instance(mode);
        try {
          const ws: TestWorkspace = await a.workspace(`Cached replicas ${mode}`);
          const caughtUp = async () => {
            await cluster.waitForReplay();
            await Promise.all([a.db.replicas?.pollNow(), b.db.replicas?.pollNow()]);
          };
          const category = await fetch(`${a.url}/v1/categories`, {
            method: "POST",
            headers: { authorization: ws.privateKey, "content-type": "application/json" },
            body: JSON.stringify({ name: "News", slug: "news" }),
          });
          expect(category.status).toBe(201);
          const categoryId = ((await category.json()) as { category: { id: string } }).category.id;
          const created = await fetch(`${a.url}/v1/posts`, {
            method: "POST",
            headers: { authorization: ws.privateKey, "content-type": "application/json" },
            body: JSON.stringify({
              title: "v0",
              slug: SLUG,
              content: "<p>Body</p>",
              description: "Watched",
              categoryId,
              status: "published",
            }),
          });
          expect(created.status, await created.clone().text()).toBe(201);
          const rename = async (app: TestApp, title: string) => {
            const res = await fetch(`${app.url}/v1/posts/${SLUG}`, {
              method: "PATCH",
              headers: { authorization: ws.privateKey, "content-type": "application/json" },
              body: JSON.stringify({ title }),
            });
            expect(res.status).toBe(200);
            await res.arrayBuffer();
          };

          /** The watched post's title through one door, with X-Cache and whether the replica computed it. */
          const read = async (app: TestApp, door: Door, listLimit = 50): Promise<Seen> => {
            const before = await replicaReads(app);
            let res: Response;
            let title: string | undefined;
            if (door === "graphql") {
              res = await fetch(`${app.url}/graphql`, {
                method: "POST",
                headers: { authorization: `Bearer ${ws.publicKey}`, "content-type": "application/json" },
                body: JSON.stringify({ query: `{ post(identifier: "${SLUG}") { title } }` }),
              });
              title = ((await res.json()) as { data?: { post?: { title: string } } }).data?.post?.title;
            } else if (door === "rest-post") {
              res = await fetch(`${app.url}/v1/posts/${SLUG}`, { headers: { authorization: ws.publicKey } });
              title = ((await res.json()) as { post?: { title: string } }).post?.title;
            } else {
              res = await fetch(`${app.url}/v1/posts?limit=${listLimit}`, {
                headers: { authorization: ws.publicKey },
              });
              const body = (await res.json()) as { posts?: { slug: string; title: string }[] };
              title = body.posts?.find((post) => post.slug === SLUG)?.title;
            }
            expect(res.status).toBe(200);
            return {
              title,
              cache: res.headers.get("x-cache"),
              onReplica: (await replicaReads(app)) > before,
            };
          };
          /** Every door of both instances, twice each: the second is a hit on what the first left. */
          const everyDoorTwice = async () => {
            const seen: { where: string; first: Seen; second: Seen }[] = [];
            for (const [name, app] of [
              ["A", a],
              ["B", b],
            ] as const)
              for (const door of DOORS) {
                const first = await read(app, door);
                seen.push({ where: `${name} ${door}`, first, second: await read(app, door) });
              }
            return seen;
          };
          // Each read as "where: title (X-Cache)", so a failure shows whether a stale title was a hit or
          // a miss; the expected side keeps each read's X-Cache (asserted on its own below).
          const label = (where: string, seen: Seen, title = seen.title) =>
            `${where}: ${title} (${seen.cache})`;
          const titles = (seen: { where: string; first: Seen; second: Seen }[]) =>
            seen.flatMap(({ where, first, second }) => [
              label(where, first),
              label(`${where} again`, second),
            ]);
          const everyTitle = (seen: { where: string; first: Seen; second: Seen }[], title: string) =>
            seen.flatMap(({ where, first, second }) => [
              label(where, first, title),
              label(`${where} again`, second, title),
            ]);

          // Warm: answers stored under the head before the writes below, on both instances, every door.
          await caughtUp();
          const warm = await everyDoorTwice();
          expect(titles(warm)).toEqual(everyTitle(warm, "v0"));
          expect(warm.map((r) => `${r.where}: ${r.second.cache}`)).toEqual(
            warm.map((r) => `${r.where}: HIT`),
          );
          // Not vacuous: with the replica caught up, the replica answered misses.
          expect(warm.some((r) => r.first.onReplica)).toBe(true);

          // Replay paused, a write on A: no read on A or B may be the v0 stored under the older head, nor a
          // miss computed on the replica that has not replayed the write (it goes to the primary).
          await cluster.pauseReplay();
          let paused: Awaited<ReturnType<typeof everyDoorTwice>>;
          let fresh: Seen;
          try {
            await rename(a, "v1");
            paused = await everyDoorTwice();
            // A list URL this instance has never answered: with CACHE=memory its head is read in the page
            // statement itself (rest-answers.ts, headInAnswer).
            fresh = await read(b, "rest-list", 49);
          } finally {
            await cluster.resumeReplay();
          }
          expect.soft(titles(paused)).toEqual(everyTitle(paused, "v1"));
          expect.soft(fresh.title).toBe("v1");
          expect.soft(paused.filter((r) => r.first.onReplica || r.second.onReplica)).toEqual([]);
          expect.soft(fresh.onReplica).toBe(false);
          expect
            .soft(paused.map((r) => `${r.where}: ${r.second.cache}`))
            .toEqual(paused.map((r) => `${r.where}: HIT`));

          // Caught up, then a write on B: misses are computed on the replica (it has replayed the write) and
          // stored under the head they reflect; the hits that follow, on both instances, are those answers.
          await caughtUp();
          await rename(b, "v2");
          await caughtUp();
          const replayed = await everyDoorTwice();
          const freshOnReplica = await read(a, "rest-list", 48);
          const freshAgain = await read(a, "rest-list", 48);
          expect.soft(titles(replayed)).toEqual(everyTitle(replayed, "v2"));
          expect
            .soft(replayed.map((r) => `${r.where}: ${r.second.cache}`))
            .toEqual(replayed.map((r) => `${r.where}: HIT`));
          expect.soft(replayed.some((r) => r.first.onReplica)).toBe(true);
          expect.soft(freshOnReplica).toEqual({ title: "v2", cache: "MISS", onReplica: true });
          expect.soft(freshAgain).toEqual({ title: "v2", cache: "HIT", onReplica: false });

          // Paused again, a write on A: none of the replica's answers (stored under the v2 head) may be
          // served. Caught up, the answers computed while paused are the hits, and show v3: an answer the
          // replica computed before replaying v3 but stored under v3's head would be a stale hit here.
          await cluster.pauseReplay();
          try {
            await rename(a, "v3");
            const again = await everyDoorTwice();
            expect.soft(titles(again)).toEqual(everyTitle(again, "v3"));
          } finally {
            await cluster.resumeReplay();
          }
          await caughtUp();
          const last = await everyDoorTwice();
          expect.soft(titles(last)).toEqual(everyTitle(last, "v3"));
          expect
            .soft(last.map((r) => `${r.where}: ${r.first.cache}`))
            .toEqual(last.map((r) => `${r.where}: HIT`));
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      },
    );
  },
);
