// `npm run bench:statement-cpu`: PostgreSQL's own CPU per statement of the uncached read routes (issue
// 39), ours beside PostGraphile 5's, apart from any HTTP load: the service runs in-process on a fresh
// bench schema seeded as `bench:peers` seeds it, and PostGraphile over the same schema (bench/
// postgraphile.ts); each route's statements are captured at each one's `pg` driver, and each route's
// statements are then run as prepared statements on a connection of their own, `--runs` times per round
// in alternating rounds, its backend's CPU read from /proc/<pid>/stat (user + system). The median of the
// rounds is printed, per route (all of a route's statements: PostGraphile counts in a second one).
//
//   npm run bench:statement-cpu                      2,000 posts, 300 runs × 5 rounds
//   --posts N  --runs N  --rounds N  --only id,id  --no-peer  --peer-node PATH
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { createBenchDatabase } from "./database.ts";
import { startInProcessService } from "./in-process-service.ts";
import { log } from "./log.ts";
import { peerNode, peerQueries, startPostGraphile } from "./postgraphile.ts";
import { GRAPHQL_LIST_QUERY } from "./scenarios.ts";
import { seedBenchDatabase } from "./seed.ts";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    runs: { type: "string", default: "300" },
    rounds: { type: "string", default: "5" },
    only: { type: "string" },
    "no-peer": { type: "boolean", default: false },
    "peer-node": { type: "string" },
  },
});
/** The content of bench:peers (bench/peers.ts). */
const SIZES = { posts: Number(values.posts), categories: 8, tags: 20, authors: 5, fields: 2, paragraphs: 5 };
/** Linux's USER_HZ: /proc's CPU times are in hundredths of a second. */
const MS_PER_TICK = 10;

interface Captured {
  text: string;
  values: unknown[];
}

/** Every statement the pg driver sends while `run` runs. */
async function capture(run: () => Promise<void>): Promise<Captured[]> {
  const captured: Captured[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (
    this: pg.Client,
    config: unknown,
    params?: unknown,
    callback?: unknown,
  ) {
    const query = config as { text?: string; values?: unknown[] } | string;
    const text = typeof query === "string" ? query : query.text;
    const args = typeof query === "string" ? params : (query.values ?? params);
    if (text) captured.push({ text, values: (args as unknown[] | undefined) ?? [] });
    return (original as (...args: unknown[]) => unknown).call(this, config, params, callback);
  } as typeof pg.Client.prototype.query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = original;
  }
  return captured;
}

/** Prefixes the ids of PostGraphile's routes. */
const PEER_PREFIX = "PostGraphile ";

/** A route's statements, as one side sent them for one request. */
interface Measured {
  id: string;
  statements: Captured[];
}

/**
 * PostGraphile's statements for each route: each query sent twice (its plan is built on first use), the
 * second request's statements kept, as its `pg` client sent them (bench/capture-statements.mjs).
 */
async function peerStatements(
  fixtures: Parameters<typeof peerQueries>[0],
  env: Record<string, string>,
  only: string[] | undefined,
): Promise<Measured[]> {
  const captureFile = `${env.DATA_DIR}/postgraphile-statements.ndjson`;
  const peer = await startPostGraphile(env, { nodeBinary: peerNode(values["peer-node"]), captureFile });
  try {
    const found: Measured[] = [];
    for (const [id, body] of Object.entries(peerQueries(fixtures))) {
      if (only && !only.includes(id)) continue;
      const send = async () => {
        const res = await fetch(`${peer.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer = (await res.json()) as { errors?: unknown };
        if (res.status !== 200 || answer.errors)
          throw new Error(`PostGraphile ${id}: ${JSON.stringify(answer)}`);
      };
      await send();
      writeFileSync(captureFile, "");
      await send();
      const lines = readFileSync(captureFile, "utf8").trim().split("\n");
      found.push({
        id: `${PEER_PREFIX}${id}`,
        statements: lines.map((line) => JSON.parse(line) as Captured),
      });
    }
    return found;
  } finally {
    await peer.stop();
  }
}

/** A connection of its own that runs a route's statements, prepared, one after the other. */
async function preparedSubject(route: Measured, env: Record<string, string>) {
  const client = new pg.Client({
    connectionString: env.DATABASE_URL,
    options: `-c search_path=${env.DATABASE_SCHEMA}`,
  });
  await client.connect();
  const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid as number;
  const queries = route.statements.map((statement, n) => ({
    name: `measured${n}`,
    text: statement.text,
    values: statement.values,
  }));
  const run = async () => {
    for (const query of queries) await client.query(query);
  };
  // Past the five custom plans, so the generic plan the service's pooled connections use is measured.
  for (let n = 0; n < 20; n++) await run();
  return { ...route, client, pid, run, perRound: [] as number[] };
}

function backendCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

const database = await createBenchDatabase({
  embedded: false,
  databaseUrl: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
});
try {
  const seed = await seedBenchDatabase(database.env, SIZES, { analyze: true });
  const f = seed.fixtures;
  log(
    `${database.location}: ${SIZES.posts} posts seeded in ${(seed.seedMs / 1000).toFixed(1)} s (+ VACUUM ANALYZE)`,
  );
  const service = await startInProcessService(database.env);
  const { base } = service;
  const graphql = (limit: number): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: GRAPHQL_LIST_QUERY, variables: { limit } }),
  });
  const routes: { id: string; path: string; init?: RequestInit }[] = [
    { id: "get", path: `/v1/posts/${f.postSlug}` },
    { id: "list10", path: "/v1/posts?limit=10" },
    { id: "list100", path: "/v1/posts?limit=100" },
    { id: "graphql", path: "/graphql", init: graphql(10) },
    // tagSlugs[0] is tagIds[5]'s slug (bench/seed.ts): the tag PostGraphile's page is asked for.
    { id: "tag", path: `/v1/posts?tags=${f.tagSlugs[0]}&limit=10` },
  ];
  const only = values.only?.split(",");
  const measured: Measured[] = [];
  for (const route of routes) {
    if (only && !only.includes(route.id)) continue;
    const send = async () => {
      const res = await fetch(base + route.path, {
        ...route.init,
        headers: {
          ...(route.init?.headers as Record<string, string>),
          authorization: `Bearer ${f.publicKey}`,
        },
      });
      if (res.status !== 200) throw new Error(`${route.id}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    await send();
    measured.push({ id: route.id, statements: await capture(send) });
  }
  service.stopListening();
  if (!values["no-peer"]) {
    const peerFixtures = { ...f, tagId: f.tagIds[5 % f.tagIds.length] as string };
    measured.push(...(await peerStatements(peerFixtures, database.env, only)));
  }
  const runs = Number(values.runs);
  const subjects = await Promise.all(measured.map((route) => preparedSubject(route, database.env)));
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = round % 2 ? [...subjects].reverse() : subjects;
    for (const subject of order) {
      const before = backendCpuMs(subject.pid);
      for (let n = 0; n < runs; n++) await subject.run();
      subject.perRound.push((backendCpuMs(subject.pid) - before) / runs);
    }
  }
  log(
    `\nPostgreSQL CPU per route (ms, all of its statements), median of ${values.rounds} rounds of ${runs} runs`,
  );
  const medians = new Map<string, number>();
  for (const subject of subjects) {
    const sorted = [...subject.perRound].sort((a, b) => a - b);
    medians.set(subject.id, sorted[Math.floor(sorted.length / 2)] ?? Number.NaN);
    await subject.client.end();
  }
  log(
    `${"route".padEnd(8)} ${"ours".padStart(7)} ${"PostGraphile".padStart(12)} ${"ours ÷ peer".padStart(11)}   ours`,
  );
  for (const subject of subjects) {
    if (subject.id.startsWith(PEER_PREFIX)) continue;
    const ours = medians.get(subject.id) as number;
    const peer = medians.get(`${PEER_PREFIX}${subject.id}`);
    const ratio = peer ? `${(ours / peer).toFixed(2)}×` : "–";
    const text = (subject.statements[0]?.text ?? "").slice(0, 60).replace(/\s+/g, " ");
    log(
      `${subject.id.padEnd(8)} ${ours.toFixed(3).padStart(7)} ${(peer?.toFixed(3) ?? "–").padStart(12)} ${ratio.padStart(11)}   ${subject.statements.length} statement(s): ${text}…`,
    );
  }
  log("PostGraphile's statements (a page counts in a second one):");
  for (const subject of subjects)
    if (subject.id.startsWith(PEER_PREFIX))
      log(
        `  ${subject.id}: ${subject.statements.map((s) => s.text.slice(0, 50).replace(/\s+/g, " ")).join("… + ")}…`,
      );
  await service.close();
} finally {
  await database.drop();
}
process.exit(0);
