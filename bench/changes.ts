// `npm run bench:changes`: the delta feed's common request — a poll that finds nothing new — against
// the uncached post list it replaces (GET /v1/posts?limit=10, response cache off), on one service with
// 1,000 posts. Both with keep-alive connections at the same concurrency (autocannon).
//
//   npm run bench:changes                  PostgreSQL (DATABASE_URL or the local server)
//   npm run bench:changes -- --embedded    embedded PGlite
//   --seconds N (default 8)   --connections N (default 10)
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { log } from "./log.ts";
import { ownCpuMs, postgresCpuMs } from "./processes.ts";
import type { Scenario } from "./scenarios.ts";
import { withSeededService } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "10" },
  },
});
const settings = { duration: Number(values.seconds), warmup: 2, connections: Number(values.connections) };

const read = (id: string, path: string): Scenario => ({
  id,
  title: `GET ${path.replace(/since=[^&]+/, "since=…")}`,
  server: "service",
  steps: [{ label: id, method: "GET", key: "public", path, expectStatus: 200 }],
});

await withSeededService(
  { embedded: values.embedded, posts: 1_000, env: { CACHE: "off" }, log },
  async ({ server, fixtures }) => {
    const keys = { public: fixtures.publicKey, private: fixtures.privateKey };
    // Where a client that has synced everything stands: the cursor after the last page.
    let cursor = "";
    for (let more = true; more; ) {
      const res = await fetch(`${server.url}/v1/changes?limit=100${cursor ? `&since=${cursor}` : ""}`, {
        headers: { authorization: fixtures.publicKey },
      });
      const page = (await res.json()) as { nextCursor: string; hasMore: boolean };
      cursor = page.nextCursor;
      more = page.hasMore;
    }
    const meters = { server: server.cpuMs, database: postgresCpuMs, loadGenerator: ownCpuMs };
    for (const scenario of [
      read("list10", "/v1/posts?limit=10"),
      read("changes-empty", `/v1/changes?since=${cursor}`),
    ]) {
      const result = await runLoad(server.url, scenario, keys, settings, meters);
      log(
        `${scenario.title.padEnd(40)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.latencyMs.p50} ms  p99 ${result.latencyMs.p99} ms  service CPU ${result.cpuMsPerRequest?.toFixed(2)} ms/req  non-2xx ${result.non2xx}`,
      );
    }
  },
);
