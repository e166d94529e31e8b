// `npm run bench:images`: image transforms (issue 41). One service on a small seeded database (embedded
// PGlite by default; a transform URL reads two indexed rows: the original's and the variant's record),
// a 4000×3000 photo-like JPEG uploaded, then:
//   1. cold: the first request of each of a few variants (transform + store), timed one at a time;
//   2. warm: a stored variant against the original file, and against an original of the variant's own
//      size (the same bytes on the wire: what the transform route itself adds), under load in turns;
//   3. burst: 32 connections asking only for variants never asked before, with the transform bound
//      (MEDIA_TRANSFORM_CONCURRENCY) active: p99, and every status (200, or the documented 503).
//
//   npm run bench:images                      --duration SEC (5) --connections N (10) --postgres

import { parseArgs } from "node:util";
import autocannon, { type AutocannonRequest, type AutocannonResult } from "autocannon";
import sharp from "sharp";
import { log } from "./log.ts";
import { withSeededService } from "./seeded-service.ts";

const { values } = parseArgs({
  options: {
    postgres: { type: "boolean", default: false },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const BURST_CONNECTIONS = 32;

/** A 4000×3000 JPEG that compresses like a photograph: smooth gradients under a little grain. */
async function makePhoto(): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const gradient = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      gradient[i] = (x * 255) / width;
      gradient[i + 1] = (y * 255) / height;
      gradient[i + 2] = 128 + 100 * Math.sin((x + y) / 200);
    }
  const grain = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: "#000",
      noise: { type: "gaussian", mean: 0, sigma: 12 },
    },
  })
    .raw()
    .toBuffer();
  return sharp(gradient, { raw: { width, height, channels: 3 } })
    .composite([{ input: grain, raw: { width, height, channels: 3 }, blend: "add" }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function upload(baseUrl: string, key: string, bytes: Buffer, filename: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), filename);
  const response = await fetch(`${baseUrl}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: key },
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  const { media } = (await response.json()) as { media: { url: string } };
  return new URL(media.url).pathname;
}

async function load(
  url: string,
  paths: string[],
  connectionCount: number,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<AutocannonResult> {
  let next = 0;
  const requests: AutocannonRequest[] = [
    { setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length], headers }) },
  ];
  return await autocannon({ url, connections: connectionCount, duration: seconds, requests, timeout: 30 });
}

const row = (name: string, result: AutocannonResult) =>
  `${name.padEnd(34)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p50 ${String(result.latency.p50).padStart(5)} ms  p99 ${String(result.latency.p99).padStart(5)} ms  statuses ${JSON.stringify(
    Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count])),
  )}  errors ${result.errors + result.timeouts}`;

await withSeededService(
  {
    embedded: !values.postgres,
    posts: 10,
    // One client address asks for every variant, and the burst makes more than the default bound per
    // original: neither limit is what this bench measures.
    env: {
      NODE_ENV: "production",
      RATE_LIMIT_UNAUTHENTICATED: "100000000",
      MEDIA_TRANSFORM_RATE_LIMIT: "100000000",
      MEDIA_TRANSFORM_MAX_VARIANTS: "100000",
    },
    log,
  },
  async ({ server, fixtures }) => {
    const photo = await makePhoto();
    log(`Original: 4000×3000 JPEG, ${(photo.length / 1024).toFixed(0)} KiB`);
    const original = await upload(server.url, fixtures.privateKey, photo, "photo.jpg");

    // 1. Cold: each variant's first request computes and stores it.
    log("\n1. First request of a variant (transform + store), one at a time");
    for (const query of [
      "w=640&fm=webp",
      "w=1080&fm=webp",
      "w=1920&fm=jpeg",
      "w=1080&fm=avif",
      "w=3840&fm=webp",
    ]) {
      const started = performance.now();
      const response = await fetch(`${server.url}${original}?${query}`);
      const bytes = (await response.arrayBuffer()).byteLength;
      const ms = performance.now() - started;
      const again = performance.now();
      await (await fetch(`${server.url}${original}?${query}`)).arrayBuffer();
      log(
        `   ${query.padEnd(16)} ${response.status}  ${(bytes / 1024).toFixed(0).padStart(5)} KiB  cold ${ms.toFixed(0).padStart(5)} ms  then stored ${(performance.now() - again).toFixed(1)} ms`,
      );
    }

    // 2. Warm: stored variant vs the original, and vs an original of the variant's size, in turns.
    const variantQuery = "w=1080&fm=webp";
    const variantBytes = Buffer.from(
      await (await fetch(`${server.url}${original}?${variantQuery}`)).arrayBuffer(),
    );
    const sameSize = await upload(
      server.url,
      fixtures.privateKey,
      await sharp(variantBytes).jpeg().toBuffer(),
      "same.jpg",
    );
    const sameSizeBytes = (await (await fetch(`${server.url}${sameSize}`)).arrayBuffer()).byteLength;
    log(
      `\n2. Served from the store, ${connections} connections, ${duration} s each, three turns each (variant ${(variantBytes.length / 1024).toFixed(0)} KiB, same-size original ${(sameSizeBytes / 1024).toFixed(0)} KiB)`,
    );
    const contenders = [
      ["original (4000×3000 JPEG)", original],
      ["original of the variant's size", sameSize],
      [`stored variant ?${variantQuery}`, `${original}?${variantQuery}`],
    ] as const;
    // Turns (A B C A B C …) so each contender meets the machine's changing load alike; the service's CPU
    // time per response is reported too, as it moves far less than req/s on a shared machine.
    const totals = new Map<string, { requests: number; seconds: number; cpuMs: number }>();
    for (const turn of [1, 2, 3])
      for (const [name, path] of contenders) {
        await load(server.url, [path], connections, 1); // warm-up
        const cpuBefore = server.cpuMs() ?? 0;
        const result = await load(server.url, [path], connections, duration);
        const cpuMs = (server.cpuMs() ?? 0) - cpuBefore;
        const total = totals.get(name) ?? { requests: 0, seconds: 0, cpuMs: 0 };
        const answered = result.requests.total;
        totals.set(name, {
          requests: total.requests + answered,
          seconds: total.seconds + result.duration,
          cpuMs: total.cpuMs + cpuMs,
        });
        log(`   turn ${turn} ${row(name, result)}  CPU ${(cpuMs / Math.max(1, answered)).toFixed(2)} ms/req`);
      }
    const rate = (name: string) => {
      const total = totals.get(name) ?? { requests: 0, seconds: 1, cpuMs: 0 };
      return { rps: total.requests / total.seconds, cpu: total.cpuMs / Math.max(1, total.requests) };
    };
    for (const [name] of contenders)
      log(
        `   all turns: ${name.padEnd(34)} ${rate(name).rps.toFixed(0).padStart(6)} req/s  CPU ${rate(name).cpu.toFixed(2)} ms/req`,
      );
    const variant = rate(contenders[2][0]);
    log(
      `   stored variant ÷ original: ${(variant.rps / rate(contenders[0][0]).rps).toFixed(2)}× req/s; ÷ original of its size: ${(variant.rps / rate(contenders[1][0]).rps).toFixed(2)}× req/s, ${(rate(contenders[1][0]).cpu / variant.cpu).toFixed(2)}× its CPU efficiency`,
    );

    // 3. Burst of new variants: every request names a variant never asked before.
    const fresh: string[] = [];
    for (const fm of ["webp", "jpeg", "png"])
      for (const q of [50, 60, 75, 80, 90, 100])
        for (const w of [16, 32, 48, 64, 96, 128, 256, 384, 640])
          fresh.push(`${original}?w=${w}&fm=${fm}&q=${q}`);
    log(
      `\n3. ${BURST_CONNECTIONS} connections, only new variants (${fresh.length} distinct URLs), ${duration} s`,
    );
    const burst = await load(server.url, fresh, BURST_CONNECTIONS, duration);
    log(`   ${row("new variants", burst)}`);
    const unexpected = Object.keys(burst.statusCodeStats).filter(
      (status) => status !== "200" && status !== "503",
    );
    log(`   statuses other than 200 and 503: ${unexpected.length ? unexpected.join(", ") : "none"}`);
    const after = await load(server.url, [`${original}?${variantQuery}`], BURST_CONNECTIONS, duration);
    log(`   ${row("stored variant, 32 connections", after)}`);
  },
);
