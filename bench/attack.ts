// `npm run bench:attack`: can one public key stall the service through /graphql? Measures the latency
// of ordinary reads (GET /v1/posts?limit=10, four clients in a loop) on a quiet service, then again
// while abusive documents arrive eight at once, a burst every half second (16 a second: what one key
// may send under the default rate limit of 200 per 10 s), and how fast each abusive request is refused.
//
//   npm run bench:attack                 PostgreSQL (DATABASE_URL or the local server), 1,000 posts
//   npm run bench:attack -- --embedded   embedded PGlite
//   --seconds N   seconds per phase (default 8)   --burst N   requests at once (default 8)
//   --interval MS   between bursts (default 500)  --readers N   reading clients (default 4)
import { parseArgs } from "node:util";
import { log } from "./log.ts";
import { percentile, withSeededService } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    seconds: { type: "string", default: "8" },
    burst: { type: "string", default: "8" },
    interval: { type: "string", default: "500" },
    readers: { type: "string", default: "4" },
  },
});
const seconds = Number(values.seconds);
const burst = Number(values.burst);
const intervalMs = Number(values.interval);
const readers = Number(values.readers);

const SCHEMA_WALK = "__schema { types { name fields { name args { name } type { name } } } }";
const aliased = (count: number, selection: string) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(" ")} }`;
/** The documents of issue 20, class 1, and the two ways around a token limit alone. */
const ATTACKS = [
  { name: "3,000 aliases of a schema walk", query: aliased(3_000, SCHEMA_WALK) },
  { name: "20 aliases of a schema walk (under the alias limit)", query: aliased(20, SCHEMA_WALK) },
  {
    name: "1,500 levels of nesting",
    query: `{ posts { items { ${"authors { ".repeat(1_500)}name${" }".repeat(1_500)} } } }`,
  },
];

interface Sample {
  ms: number;
  status: number;
}

async function timed(url: string, init: RequestInit): Promise<Sample> {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** `workers` loops sending `request` until `until`; every answer's latency and status. */
async function loop(workers: number, until: number, request: () => Promise<Sample>): Promise<Sample[]> {
  const samples: Sample[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) samples.push(await request());
    }),
  );
  return samples;
}

/** Bursts of `size` simultaneous requests every `intervalMs` until `until`. */
async function bursts(
  size: number,
  every: number,
  until: number,
  request: () => Promise<Sample>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const inFlight: Promise<void>[] = [];
  while (performance.now() < until) {
    const started = performance.now();
    for (let i = 0; i < size; i++) inFlight.push(request().then((sample) => void samples.push(sample)));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, every - (performance.now() - started))));
  }
  await Promise.all(inFlight);
  return samples;
}

function summary(samples: Sample[]): string {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const s of samples) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  const byStatus = [...statuses].map(([status, n]) => `${n}×${status}`).join(" ");
  const fmt = (value: number) => value.toFixed(1).padStart(7);
  return `${String(samples.length).padStart(6)} req  p50 ${fmt(percentile(ms, 50))}  p95 ${fmt(percentile(ms, 95))}  p99 ${fmt(percentile(ms, 99))}  max ${fmt(ms.at(-1) ?? Number.NaN)} ms   ${byStatus}`;
}

await withSeededService({ embedded: values.embedded, posts: 1_000, log }, async ({ server, fixtures }) => {
  const key = fixtures.publicKey;
  const read = () => timed(`${server.url}/v1/posts?limit=10`, { headers: { authorization: key } });
  const attack = (query: string) => () =>
    timed(`${server.url}/graphql`, {
      method: "POST",
      headers: { authorization: key, "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
  log(
    `Service on ${server.url}; ${readers} readers; attacks ${burst} at once every ${intervalMs} ms; ${seconds} s per phase\n`,
  );
  await loop(readers, performance.now() + 2_000, read); // warm-up
  for (const { query } of ATTACKS) await attack(query)(); // warm-up of the refusal paths

  const quiet = await loop(readers, performance.now() + seconds * 1_000, read);
  log(`reads, quiet service:            ${summary(quiet)}`);
  for (const { name, query } of ATTACKS) {
    const until = performance.now() + seconds * 1_000;
    const [reads, attacks] = await Promise.all([
      loop(readers, until, read),
      bursts(burst, intervalMs, until, attack(query)),
    ]);
    log(`\nattack: ${name} (${(query.length / 1024).toFixed(0)} KiB document)`);
    log(`  the attacks:                   ${summary(attacks)}`);
    log(`  reads during the attack:       ${summary(reads)}`);
  }
});
