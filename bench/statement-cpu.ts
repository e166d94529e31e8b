// `npm run bench:statement-cpu`: PostgreSQL's own CPU per statement of the uncached read routes (issue
// 39), apart from any HTTP load: the service runs in-process on a fresh bench schema seeded as
// `bench:peers` seeds it, each route's statements are captured at the driver, and each statement is then
// run as a prepared statement on a connection of its own, `--runs` times per round in alternating rounds,
// its backend's CPU read from /proc/<pid>/stat (user + system). The median of the rounds is printed.
//
//   npm run bench:statement-cpu                      2,000 posts, 300 runs × 5 rounds
//   --posts N  --runs N  --rounds N  --only id,id
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import pg from "pg";
import { buildApp } from "../src/app/build-app.ts";
import { openRuntime } from "../src/bootstrap.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { createBenchDatabase } from "./database.ts";
import { GRAPHQL_LIST_QUERY } from "./scenarios.ts";
import { seedBenchDatabase } from "./seed.ts";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    runs: { type: "string", default: "300" },
    rounds: { type: "string", default: "5" },
    only: { type: "string" },
  },
});
const log = (text: string) => process.stdout.write(`${text}\n`);
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
  const config = loadConfig({
    ...database.env,
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    CACHE: "off",
    RATE_LIMIT_AUTHENTICATED: "1000000000",
  });
  const runtime = await openRuntime(config, silentLogger, {});
  const app = buildApp({ config, logger: silentLogger, ...runtime });
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(app.listener).listen(0, "127.0.0.1", () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
    { id: "tag", path: `/v1/posts?tags=${f.tagSlugs[5 % f.tagSlugs.length]}&limit=10` },
  ];
  const only = values.only?.split(",");
  const statements: { id: string; text: string; values: unknown[] }[] = [];
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
    const captured = await capture(send);
    captured.forEach((statement, n) => {
      statements.push({ id: captured.length > 1 ? `${route.id}#${n + 1}` : route.id, ...statement });
    });
  }
  server.close();
  const runs = Number(values.runs);
  const subjects = await Promise.all(
    statements.map(async (statement) => {
      const client = new pg.Client({
        connectionString: database.env.DATABASE_URL,
        options: `-c search_path=${database.env.DATABASE_SCHEMA}`,
      });
      await client.connect();
      const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]
        ?.pid as number;
      const query = { name: "measured", text: statement.text, values: statement.values };
      // Past the five custom plans, so the generic plan the service's pooled connections use is measured.
      for (let n = 0; n < 20; n++) await client.query(query);
      return { ...statement, client, pid, query, perRound: [] as number[] };
    }),
  );
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = round % 2 ? [...subjects].reverse() : subjects;
    for (const subject of order) {
      const before = backendCpuMs(subject.pid);
      for (let n = 0; n < runs; n++) await subject.client.query(subject.query);
      subject.perRound.push((backendCpuMs(subject.pid) - before) / runs);
    }
  }
  log(`\nPostgreSQL CPU per statement (ms), median of ${values.rounds} rounds of ${runs} runs`);
  for (const subject of subjects) {
    const sorted = [...subject.perRound].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    log(
      `${subject.id.padEnd(10)} ${median.toFixed(3).padStart(7)}   ${subject.text.slice(0, 90).replace(/\s+/g, " ")}…`,
    );
    await subject.client.end();
  }
  await runtime.close?.();
} finally {
  await database.drop();
}
process.exit(0);
