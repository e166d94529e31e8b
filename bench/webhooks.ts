// `npm run bench:webhooks`: what webhooks cost a write, and how soon a receiver hears of it. Clients
// update posts (PATCH /v1/posts/{slug}, a new title each time: the heaviest event body, the whole post)
// against a real server process, in alternating phases without and with one endpoint subscribed to
// every event; a receiver in this process answers 200 at once and notes when each event arrived.
// Reported: writes per second in each phase, and the delay from a write's response to the arrival of
// its post.updated event (p50, p99, max).
//
//   npm run bench:webhooks                 PostgreSQL (DATABASE_URL or the local server)
//   npm run bench:webhooks -- --embedded   embedded PGlite
//   --seconds N   per phase (default 8)   --clients N   writing clients (default 4)   --rounds N (default 2)
//   --profile     the service runs with --cpu-prof (profile in bench/profiles/webhooks-<time>/)
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import { log } from "./log.ts";
import { ownCpuMs, PROJECT_ROOT, postgresCpuMs } from "./processes.ts";
import { percentile, withSeededService } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    seconds: { type: "string", default: "8" },
    clients: { type: "string", default: "4" },
    rounds: { type: "string", default: "2" },
    profile: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const rounds = Number(values.rounds);
const profileDir = path.join(
  PROJECT_ROOT,
  "bench",
  "profiles",
  `webhooks-${new Date().toISOString().replace(/[:.]/g, "-")}`,
);

/** When each title's write was answered, and when its event arrived. */
const answeredAt = new Map<string, number>();
const arrivedAt = new Map<string, number>();

const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const at = performance.now();
    const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      type: string;
      data: { title?: string };
    };
    if (event.type === "post.updated" && event.data.title) arrivedAt.set(event.data.title, at);
    res.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

try {
  await withSeededService(
    {
      embedded: values.embedded,
      posts: 1_000,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
      nodeArgs: values.profile ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [],
      log,
    },
    async ({ server, fixtures }) => {
      const key = fixtures.privateKey;
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: key, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
        return text ? JSON.parse(text) : null;
      };
      // One post per client, so the clients do not queue behind one row's lock.
      const posts = (await api("GET", `/v1/posts?limit=${clients}`)).posts as { slug: string }[];
      let counter = 0;
      const phase = async (): Promise<{ writes: number; perSecond: number; cpu: string }> => {
        const until = performance.now() + seconds * 1_000;
        let writes = 0;
        const cpuBefore = { service: server.cpuMs() ?? 0, database: postgresCpuMs() ?? 0, bench: ownCpuMs() };
        await Promise.all(
          posts.map(async ({ slug }) => {
            while (performance.now() < until) {
              const title = `Bench title ${++counter}`;
              await api("PATCH", `/v1/posts/${slug}`, { title });
              answeredAt.set(title, performance.now());
              writes++;
            }
          }),
        );
        const per = (after: number, before: number) => ((after - before) / writes).toFixed(2);
        const cpu = `CPU ms/write: service ${per(server.cpuMs() ?? 0, cpuBefore.service)}, database ${per(postgresCpuMs() ?? 0, cpuBefore.database)}, clients+receiver ${per(ownCpuMs(), cpuBefore.bench)}`;
        return { writes, perSecond: writes / seconds, cpu };
      };

      log(
        `Service on ${server.url}; ${clients} clients updating posts; ${seconds} s per phase, ${rounds} rounds\n`,
      );
      await phase(); // warm-up
      const without: number[] = [];
      const withOne: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const none = await phase();
        without.push(none.perSecond);
        log(`no endpoint:       ${none.writes} writes, ${none.perSecond.toFixed(1)} writes/s; ${none.cpu}`);
        const endpoint = (await api("POST", "/v1/webhooks", { url: receiverUrl, events: ["*"] })).webhook as {
          id: string;
        };
        answeredAt.clear();
        arrivedAt.clear();
        const one = await phase();
        withOne.push(one.perSecond);
        // Let the last deliveries land before the endpoint goes.
        const deadline = performance.now() + 10_000;
        while (arrivedAt.size < answeredAt.size && performance.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50));
        await api("DELETE", `/v1/webhooks/${endpoint.id}`);
        const delays = [...answeredAt]
          .flatMap(([title, answered]) => {
            const arrived = arrivedAt.get(title);
            return arrived === undefined ? [] : [arrived - answered];
          })
          .sort((a, b) => a - b);
        log(
          `one endpoint (*):  ${one.writes} writes, ${one.perSecond.toFixed(1)} writes/s; ${one.cpu}\n                   ${delays.length}/${answeredAt.size} events arrived, write response → receipt p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${(delays.at(-1) ?? Number.NaN).toFixed(1)} ms`,
        );
      }
      const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / list.length;
      const change = (mean(withOne) / mean(without) - 1) * 100;
      log(
        `\nmean over ${rounds} rounds: ${mean(without).toFixed(1)} writes/s without, ${mean(withOne).toFixed(1)} with one endpoint (${change >= 0 ? "+" : ""}${change.toFixed(1)}%)`,
      );
    },
  );
} finally {
  receiver.close();
}
