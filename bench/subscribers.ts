// `npm run bench:subscribers`: fan-out of live changes. Opens N GraphQL subscriptions over SSE
// (`contentChanged`, public key) to one service, then makes writes one at a time and measures, for
// every subscriber, the delay from the write's response to the change's arrival.
//
//   npm run bench:subscribers                   PostgreSQL (DATABASE_URL or the local server)
//   npm run bench:subscribers -- --embedded     embedded PGlite
//   --subscribers N (default 1000)   --writes N (default 20)

import { request } from "node:http";
import { parseArgs } from "node:util";
import { log } from "./log.ts";
import { percentile, withSeededService } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    subscribers: { type: "string", default: "1000" },
    writes: { type: "string", default: "20" },
  },
});
const subscribers = Number(values.subscribers);
const writes = Number(values.writes);

await withSeededService({ embedded: values.embedded, posts: 200, log }, async ({ server, fixtures }) => {
  /** Arrival times per written tag slug, one entry per subscriber that received it. */
  const arrivals = new Map<string, number[]>();
  const streams: { destroy(): void }[] = [];
  let connected = 0;
  // One connection per subscription (no agent: no pool limit), as so many browsers would hold.
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        query: 'subscription { contentChanged(types: ["tag.created"]) { slug } }',
      });
      const req = request(`${server.url}/graphql`, {
        method: "POST",
        agent: false,
        headers: {
          authorization: fixtures.publicKey,
          "content-type": "application/json",
          accept: "text/event-stream",
          "content-length": Buffer.byteLength(body),
        },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        if (res.statusCode !== 200) return reject(new Error(`subscription answered ${res.statusCode}`));
        streams.push(res);
        connected++;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          const at = performance.now();
          for (const match of chunk.matchAll(/"slug":"([^"]+)"/g)) {
            const slug = match[1] as string;
            const list = arrivals.get(slug) ?? [];
            list.push(at);
            arrivals.set(slug, list);
          }
        });
        res.on("error", () => {});
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  for (let i = 0; i < subscribers; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, open));
  log(`${connected} subscribers connected in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await new Promise((resolve) => setTimeout(resolve, 500));

  // From the response: negative when the change reached a subscriber before the writer had read its
  // own answer (this process reads 1,000 streams too). From the request: an upper bound, write included.
  const delays: number[] = [];
  const fromRequest: number[] = [];
  let missing = 0;
  for (let i = 0; i < writes; i++) {
    const slug = `fanout-${i}`;
    const sent = performance.now();
    const res = await fetch(`${server.url}/v1/tags`, {
      method: "POST",
      headers: { authorization: fixtures.privateKey, "content-type": "application/json" },
      body: JSON.stringify({ name: `Fan-out ${i}`, slug }),
    });
    const answered = performance.now();
    if (res.status !== 201) throw new Error(`write answered ${res.status}`);
    const deadline = answered + 10_000;
    while ((arrivals.get(slug)?.length ?? 0) < subscribers && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const got = arrivals.get(slug) ?? [];
    missing += subscribers - got.length;
    delays.push(...got.map((at) => at - answered));
    fromRequest.push(...got.map((at) => at - sent));
  }
  delays.sort((a, b) => a - b);
  fromRequest.sort((a, b) => a - b);
  log(
    `${writes} writes × ${subscribers} subscribers: write request sent → receipt p50 ${percentile(fromRequest, 50).toFixed(1)} ms, p99 ${percentile(fromRequest, 99).toFixed(1)} ms, max ${(fromRequest.at(-1) ?? Number.NaN).toFixed(1)} ms`,
  );
  log(
    `${writes} writes × ${subscribers} subscribers: write response → receipt p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${(delays.at(-1) ?? Number.NaN).toFixed(1)} ms; ${missing} not received`,
  );
  for (const stream of streams) stream.destroy();
});
