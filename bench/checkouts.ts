// `npm run bench:checkouts -- --checkout before=/tmp/old --checkout after=.`: the service's CPU per
// request of several checkouts (and the baseline's), each server loaded alone, in alternating rounds on
// one seeded schema. For changes of a few percent, which `npm run bench` cannot tell apart from the
// machine's drift between runs (the same baseline has measured 0.42 and 0.73 CPU ms per list on this
// machine an hour apart): every round runs every server once, in turn order reversed every other
// round, so a slow spell of the machine falls on all of them. Before any load, each server's CPU while
// idle (ms per second, over --idle seconds): what its timers cost whether or not requests come. Beside
// each median, the part of it the kernel spent (socket reads and writes).
// A checkout is any directory with this project installed (`git worktree add /tmp/old <commit>`, then
// link or install its node_modules and run `npm run setup` there, or copy src/generated).
import { parseArgs } from "node:util";
import autocannon, { type AutocannonResult } from "autocannon";
import { type ChildServer, startServer } from "./processes.ts";
import { benchServiceEnv, percentile, withSeededDatabase } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    checkout: { type: "string", multiple: true, default: [] },
    rounds: { type: "string", default: "8" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "40" },
    idle: { type: "string", default: "20" },
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

const median = (list: number[]) =>
  percentile(
    [...list].sort((a, b) => a - b),
    50,
  );

await withSeededDatabase(
  { embedded: false, posts: Number(values.posts), log: (text) => console.log(text) },
  async ({ fixtures, database }) => {
    const env = benchServiceEnv(database, false, { CACHE: "off" });
    const servers = [
      ...(values["no-baseline"]
        ? []
        : [{ name: "baseline", script: "bench/baseline-server.ts", cwd: undefined }]),
      ...checkouts.map(({ name, dir }) => ({ name, script: "src/server.ts", cwd: dir })),
    ];
    const contenders: {
      name: string;
      server: ChildServer;
      perRequest: number[];
      /** The kernel's part of perRequest. */
      systemPerRequest: number[];
      rps: number[];
      idleMsPerSecond: number;
    }[] = [];
    try {
      for (const { name, script, cwd } of servers)
        contenders.push({
          name,
          server: await startServer({ name, script, cwd, env }),
          perRequest: [],
          systemPerRequest: [],
          rps: [],
          idleMsPerSecond: Number.NaN,
        });
      const load = async (url: string, duration: number): Promise<AutocannonResult> => {
        const result = await autocannon({
          url,
          connections,
          duration,
          timeout: 30,
          requests: [
            { method: "GET", path: values.path, headers: { authorization: `Bearer ${fixtures.publicKey}` } },
          ],
        });
        if (result.non2xx) throw new Error(`${url}: ${result.non2xx} answers were not 2xx`);
        return result;
      };
      // Started and settled, all servers idle side by side, before any load: after a load a server stays
      // busier for a while (once 9.5 ms/s, 5 s after 40 s of load), which is not what its timers cost.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const idleSeconds = Number(values.idle);
      const idleFrom = contenders.map((contender) => contender.server.cpuMs() ?? Number.NaN);
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      contenders.forEach((contender, index) => {
        contender.idleMsPerSecond =
          ((contender.server.cpuMs() ?? Number.NaN) - (idleFrom[index] as number)) / idleSeconds;
      });
      console.log(
        `Warm-up: ${values.warmup} s per server; then ${rounds} rounds of ${seconds} s, ${connections} connections, GET ${values.path}`,
      );
      for (const contender of contenders) await load(contender.server.url, Number(values.warmup));
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? contenders : [...contenders].reverse();
        for (const contender of order) {
          const before = contender.server.cpuMs() ?? Number.NaN;
          const systemBefore = contender.server.systemCpuMs() ?? Number.NaN;
          const result = await load(contender.server.url, seconds);
          const perRequest = ((contender.server.cpuMs() ?? Number.NaN) - before) / result.requests.total;
          contender.perRequest.push(perRequest);
          contender.systemPerRequest.push(
            ((contender.server.systemCpuMs() ?? Number.NaN) - systemBefore) / result.requests.total,
          );
          contender.rps.push(result.requests.average);
          console.log(
            `  round ${round + 1} ${contender.name}: ${Math.round(result.requests.average)} req/s, ${perRequest.toFixed(3)} CPU ms/req`,
          );
        }
      }
      const baseline = contenders.find((contender) => contender.name === "baseline");
      console.log(
        "\nserver          CPU ms/req (median, min)   × baseline   of it system   req/s (median)   idle CPU ms/s",
      );
      for (const { name, perRequest, systemPerRequest, rps, idleMsPerSecond } of contenders) {
        const cpu = median(perRequest);
        const ratio = baseline ? `${(cpu / median(baseline.perRequest)).toFixed(2)}×` : "—";
        const min = Math.min(...perRequest).toFixed(3);
        console.log(
          `${name.padEnd(16)}${cpu.toFixed(3).padStart(8)} ${min.padStart(8)}${ratio.padStart(18)}${median(systemPerRequest).toFixed(3).padStart(15)}${String(Math.round(median(rps))).padStart(15)}${idleMsPerSecond.toFixed(1).padStart(16)}`,
        );
      }
    } finally {
      for (const contender of contenders) await contender.server.stop();
    }
  },
);
