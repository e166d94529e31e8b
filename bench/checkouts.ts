// `npm run bench:checkouts -- --checkout before=/tmp/old --checkout after=.`: the service's CPU per
// request of several checkouts (and the baseline's), each server loaded alone, in alternating rounds on
// one seeded schema. For changes of a few percent, which `npm run bench` cannot tell apart from the
// machine's drift between runs (the same baseline has measured 0.42 and 0.73 CPU ms per list on this
// machine an hour apart): every round runs every server once, in turn order reversed every other
// round, so a slow spell of the machine falls on all of them.
// A checkout is any directory with this project installed (`git worktree add /tmp/old <commit>`, then
// link or install its node_modules and run `npm run setup` there, or copy src/generated).
import { parseArgs } from "node:util";
import autocannon, { type AutocannonResult } from "autocannon";
import { createBenchDatabase } from "./database.ts";
import { type ChildServer, startServer } from "./processes.ts";
import { benchSizes, seedBenchDatabase } from "./seed.ts";

const { values } = parseArgs({
  options: {
    checkout: { type: "string", multiple: true, default: [] },
    rounds: { type: "string", default: "8" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "40" },
    connections: { type: "string", default: "10" },
    path: { type: "string", default: "/v1/posts?limit=10" },
    posts: { type: "string", default: "10000" },
    "no-baseline": { type: "boolean", default: false },
  },
});
const checkouts = (values.checkout ?? []).map((spec) => {
  const [name, dir] = spec.split("=");
  if (!name || !dir) throw new Error(`--checkout NAME=DIR, not ${spec}`);
  return { name, dir };
});
if (checkouts.length === 0) {
  process.stderr.write(
    "Usage: npm run bench:checkouts -- --checkout NAME=DIR [--checkout NAME=DIR …] [--rounds 8]\n",
  );
  process.exit(2);
}
const rounds = Number(values.rounds);
const seconds = Number(values.duration);
const connections = Number(values.connections);

const database = await createBenchDatabase({
  embedded: false,
  databaseUrl: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
});
const contenders: { name: string; server: ChildServer; perRequest: number[]; rps: number[] }[] = [];
try {
  console.log(`Database: ${database.location}; seeding ${values.posts} posts…`);
  const { fixtures } = await seedBenchDatabase(database.env, benchSizes(Number(values.posts)));
  const env = {
    ...database.env,
    LOG_LEVEL: "warn",
    CACHE: "off",
    RATE_LIMIT_AUTHENTICATED: "100000000",
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  };
  const servers = [
    ...(values["no-baseline"]
      ? []
      : [{ name: "baseline", script: "bench/baseline-server.ts", cwd: undefined }]),
    ...checkouts.map(({ name, dir }) => ({ name, script: "src/server.ts", cwd: dir })),
  ];
  for (const { name, script, cwd } of servers)
    contenders.push({ name, server: await startServer({ name, script, cwd, env }), perRequest: [], rps: [] });

  const load = async (url: string, duration: number): Promise<AutocannonResult> =>
    autocannon({
      url,
      connections,
      duration,
      timeout: 30,
      requests: [
        { method: "GET", path: values.path, headers: { authorization: `Bearer ${fixtures.publicKey}` } },
      ],
    });
  console.log(
    `Warm-up: ${values.warmup} s per server; then ${rounds} rounds of ${seconds} s, ${connections} connections, GET ${values.path}`,
  );
  for (const contender of contenders) {
    const result = await load(contender.server.url, Number(values.warmup));
    if (result.non2xx) throw new Error(`${contender.name}: ${result.non2xx} answers were not 2xx`);
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) {
      const before = contender.server.cpuMs() ?? Number.NaN;
      const result = await load(contender.server.url, seconds);
      const used = (contender.server.cpuMs() ?? Number.NaN) - before;
      if (result.non2xx) throw new Error(`${contender.name}: ${result.non2xx} answers were not 2xx`);
      contender.perRequest.push(used / result.requests.total);
      contender.rps.push(result.requests.average);
      console.log(
        `  round ${round + 1} ${contender.name}: ${Math.round(result.requests.average)} req/s, ${(used / result.requests.total).toFixed(3)} CPU ms/req`,
      );
    }
  }
  const median = (list: number[]) =>
    [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
  const baseline = contenders.find((contender) => contender.name === "baseline");
  console.log("\nserver          CPU ms/req (median, min)   × baseline   req/s (median)");
  for (const contender of contenders) {
    const cpu = median(contender.perRequest);
    const ratio = baseline ? `${(cpu / median(baseline.perRequest)).toFixed(2)}×` : "—";
    console.log(
      `${contender.name.padEnd(16)}${cpu.toFixed(3).padStart(8)} ${Math.min(...contender.perRequest)
        .toFixed(3)
        .padStart(8)}${ratio.padStart(18)}${Math.round(median(contender.rps)).toString().padStart(15)}`,
    );
  }
} finally {
  for (const contender of contenders) await contender.server.stop();
  await database.drop();
}
