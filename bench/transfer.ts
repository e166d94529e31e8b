// `npm run bench:transfer`: export and import of a large workspace, with the CLI as users run it, each
// command a process of its own measured by GNU time (peak resident memory, wall time). Issue #40 asks
// for memory bounded whatever the size: 10,000 posts and 1 GB of media under 300 MB RSS.
//
//   npm run bench:transfer                         # PostgreSQL (DATABASE_URL or 127.0.0.1/test)
//   npm run bench:transfer -- --embedded           # the embedded default
//   npm run bench:transfer -- --posts 1000 --media-mb 100   # a quick trial
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import sharp from "sharp";
import { createWorkspace } from "../src/auth/workspaces.ts";
import { openRuntime } from "../src/bootstrap.ts";
import { loadConfig } from "../src/config.ts";
import { createMedia } from "../src/content/media.ts";
import { silentLogger } from "../src/logger.ts";
import { seedWorkspace } from "../src/seed/seed-workspace.ts";
import { createBenchDatabase } from "./database.ts";
import { benchSizes } from "./seed.ts";

const run = promisify(execFile);
const RSS_LIMIT_MB = 300;

const { values } = parseArgs({
  options: {
    embedded: { type: "boolean", default: false },
    posts: { type: "string", default: "10000" },
    "media-mb": { type: "string", default: "1024" },
    keep: { type: "boolean", default: false },
  },
});
const posts = Number(values.posts);
const mediaBytesWanted = Number(values["media-mb"]) * 2 ** 20;

/** A PNG of random noise (incompressible: the archive is as large as the media), just under 4.2 MB. */
async function noiseImage(): Promise<Buffer> {
  const side = 1180;
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

interface Measured {
  wallSeconds: number;
  maxRssMb: number;
  stdout: string;
}

/** Runs the CLI under GNU time: its peak resident set and wall time, and what it printed. */
async function measuredCli(env: NodeJS.ProcessEnv, args: string[]): Promise<Measured> {
  const { stdout, stderr } = await run(
    "/usr/bin/time",
    ["-f", "TIME %e %M", process.execPath, "bin/content-gateway.mjs", ...args],
    { env, maxBuffer: 64 << 20 },
  );
  const match = /TIME ([\d.]+) (\d+)/.exec(stderr);
  if (!match) throw new Error(`no figures from /usr/bin/time: ${stderr.slice(-500)}`);
  return { wallSeconds: Number(match[1]), maxRssMb: Number(match[2]) / 1024, stdout };
}

async function main(): Promise<void> {
  const database = await createBenchDatabase({
    embedded: values.embedded,
    databaseUrl: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
  });
  const env = { ...process.env, ...database.env, LOG_LEVEL: "silent" };
  const archive = path.join(database.env.DATA_DIR as string, "site.tar.gz");
  try {
    console.log(`store: ${database.mode} (${database.location})`);
    const runtime = await openRuntime(loadConfig({ ...database.env, LOG_LEVEL: "silent" }), silentLogger);
    let mediaCount = 0;
    let mediaBytes = 0;
    try {
      const prisma = runtime.db.prisma;
      const source = await createWorkspace(prisma, "Transfer source");
      await createWorkspace(prisma, "Transfer target");
      const seedStarted = performance.now();
      await seedWorkspace(prisma, source.workspace.id, benchSizes(posts));
      const deps = { prisma, storage: runtime.mediaStorage, logger: silentLogger, maxBytes: 5 * 2 ** 20 };
      while (mediaBytes < mediaBytesWanted) {
        const bytes = await noiseImage();
        await createMedia(deps, source.workspace.id, {
          bytes: new Uint8Array(bytes),
          filename: `noise-${mediaCount}.png`,
          name: `Noise ${mediaCount}`,
          alt: null,
        });
        mediaCount++;
        mediaBytes += bytes.byteLength;
      }
      console.log(
        `seeded ${posts} posts and ${mediaCount} media files (${(mediaBytes / 2 ** 20).toFixed(0)} MB) in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
      );
    } finally {
      await runtime.close();
    }

    const exported = await measuredCli(env, ["export", "--workspace", "transfer-source", "--out", archive]);
    const archiveMb = statSync(archive).size / 2 ** 20;
    const imported = await measuredCli(env, [
      "import",
      archive,
      "--workspace",
      "transfer-target",
      "--no-webhooks",
    ]);
    const summary = JSON.parse(imported.stdout) as {
      totals: Record<string, number>;
      mediaBytes: number;
    };
    console.log("");
    console.log("| command | wall time | peak RSS | within 300 MB |");
    console.log("|---|---|---|---|");
    for (const [name, figures] of [
      [`export (${archiveMb.toFixed(0)} MB archive)`, exported],
      [`import (${JSON.stringify(summary.totals)})`, imported],
    ] as const)
      console.log(
        `| ${name} | ${figures.wallSeconds.toFixed(1)} s | ${figures.maxRssMb.toFixed(0)} MB | ${figures.maxRssMb < RSS_LIMIT_MB ? "yes" : "NO"} |`,
      );
    if (summary.totals.created !== posts + mediaCount + benchSizesTotal())
      console.log(`note: created ${summary.totals.created} records`);
  } finally {
    if (values.keep) console.log(`kept: ${database.location}`);
    else await database.drop();
  }
}

/** Categories, tags, authors and fields the seed makes beside the posts. */
function benchSizesTotal(): number {
  const sizes = benchSizes(posts);
  return sizes.categories + sizes.tags + sizes.authors + sizes.fields;
}

await main();
