// `npm run bench:hostile`: the attacks of issue 60 items 1–4 and 7–9 replayed against the service as
// users start it (scripts/start-server.mjs, NODE_ENV=production, the embedded database on a new data
// folder, workspaces made by the CLI), with the server's resident memory (VmRSS, the embedded
// database's thread included) watched throughout. Prints one verdict per attack (expected, seen, time),
// then idle, peak and recovered memory; exits 1 when a server died, an attack had an unexpected
// outcome, or memory was not back within the rule in --recover-seconds.
//
//   npm run bench:hostile -- [--recover-seconds 60] [--rounds 1]
//   TEST_PROCESS_SKIP_BUILD=1 npm run bench:hostile    # after `npm run setup`, nothing changed in src/
//
// Two servers: one with the default settings (every attack but item 3), and one that allows private
// targets (WEBHOOK_ALLOW_PRIVATE_TARGETS=true) with shorter fetch deadlines, for item 3, whose hostile
// hosts are on 127.0.0.1. Every hostile server is a node:http server on 127.0.0.1.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { drainServerErrorSources, takeUnexpectedServerErrors } from "../test/helpers/server-errors.ts";
import { type ServerProcessApp, startServerProcessApp } from "../test/helpers/server-process-app.ts";
import { makeImage } from "../test/media/helpers/make-files.ts";
import build from "../test/process/build-once.ts";
import { testHost } from "../test/transfer/helpers/remote-hosts.ts";
import {
  archiveBombAttacks,
  type FetchBounds,
  fetchBoundAttacks,
  frontMatterAttack,
  loopbackAttack,
} from "./hostile/import-attacks.ts";
import { deletedOriginal, enlargingTransforms, transformBurst } from "./hostile/media-attacks.ts";
import {
  highWaterBytes,
  MemoryWatch,
  mib,
  RECOVERY_RULE,
  recoveryThreshold,
  rssBytes,
} from "./hostile/memory.ts";
import { cliImport, stillServing, type Target, upload, type Verdict } from "./hostile/target.ts";

const { values } = parseArgs({
  options: { "recover-seconds": { type: "string", default: "60" }, rounds: { type: "string", default: "1" } },
});
const recoverSeconds = Number(values["recover-seconds"]);
/** Rounds of all the attacks before the memory is followed: memory that grows with each round is held. */
const rounds = Number(values.rounds);

// The embedded default, whatever this shell points at.
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;

/** Item 3's deadlines, short so the run stays short; the byte cap is the default MEDIA_MAX_BYTES. */
const FETCH_SETTINGS = { IMPORT_FETCH_CONNECT_TIMEOUT_MS: "2000", IMPORT_FETCH_TIMEOUT_MS: "5000" };

const scratch = mkdtempSync(path.join(tmpdir(), "bench-hostile-"));
const servers: ServerProcessApp[] = [];

async function startTarget(label: string, env: Record<string, string>): Promise<Target> {
  const app = await startServerProcessApp({
    background: true,
    env: {
      // Users' limits (the test helper raises them), an admin token the front matter would read.
      RATE_LIMIT_AUTHENTICATED: "200",
      RATE_LIMIT_UNAUTHENTICATED: "10",
      ADMIN_TOKEN: randomBytes(24).toString("base64url"),
      ...env,
    },
  });
  servers.push(app);
  const folder = path.join(scratch, label);
  return { label, app, ws: await app.workspace(), scratch: mkdtempSync(`${folder}-`) };
}

/**
 * What a site does before anyone attacks: an import, an upload and its variants, reads; in a workspace
 * of its own, so the attacks' workspace holds only what they made.
 */
async function warmUp(attacked: Target): Promise<void> {
  const target = { ...attacked, ws: await attacked.app.workspace("Warm-up") };
  const fixtures = path.resolve(import.meta.dirname, "../test/transfer/fixtures/markdown");
  const imported = await cliImport(target, fixtures, "markdown");
  if (imported.code !== 0 && imported.summary === undefined)
    throw new Error(`warm-up import failed: ${imported.stderr}`);
  const media = await upload(target, await makeImage("png", 640, 480), "warm-up.png");
  for (const query of ["w=64", "w=128&fm=webp"]) await (await fetch(`${media.url}?${query}`)).arrayBuffer();
  for (let i = 0; i < 20; i++)
    await target.app.request("GET", "/v1/posts?limit=10", { key: target.ws.privateKey });
}

const verdicts: Verdict[] = [];
/** One per server, watching its memory from the end of the warm-up. */
const watches: MemoryWatch[] = [];

/** Runs an attack, then checks the server still serves and answered no 5xx meanwhile. */
async function attack(target: Target, run: () => Promise<Verdict | Verdict[]>): Promise<void> {
  const watch = watches.find((candidate) => candidate.pid === target.app.pid);
  watch?.takeWindowPeak();
  let results: Verdict[];
  try {
    const outcome = await run();
    results = Array.isArray(outcome) ? outcome : [outcome];
  } catch (error) {
    results = [
      { attack: "(attack aborted)", expected: "", seen: (error as Error).stack ?? "", ms: 0, ok: false },
    ];
  }
  await drainServerErrorSources();
  const serverErrors = takeUnexpectedServerErrors();
  const down = await stillServing(target);
  const last = results[results.length - 1] as Verdict;
  if (serverErrors.length > 0) {
    last.ok = false;
    last.seen += `; SERVER ERRORS: ${serverErrors.map((error) => `${error.status} ${error.request}`).join(" | ")}`;
  }
  if (down) {
    last.ok = false;
    last.seen += `; SERVER DOWN AFTER IT: ${down}\n${target.app.tail()}`;
  }
  const peak = watch?.takeWindowPeak() ?? null;
  for (const verdict of results) {
    verdicts.push(verdict);
    console.log(
      `${verdict.ok ? "ok  " : "FAIL"} ${verdict.attack} [${target.label}] ${(verdict.ms / 1000).toFixed(2)} s` +
        ` | expected: ${verdict.expected} | seen: ${verdict.seen} | RSS peak ${mib(peak)}`,
    );
  }
}

/** Items 1, 2, 4, 7, 9 and 8 on the server of default settings, then item 3 on the one allowing private targets. */
async function attackRound(attacked: Target, fetched: Target, bounds: FetchBounds): Promise<void> {
  await attack(attacked, () => frontMatterAttack(attacked));
  const secret = await testHost((_req, res) =>
    res.writeHead(200, { "content-type": "image/png" }).end("secret"),
  );
  const redirector = await testHost((_req, res) =>
    res.writeHead(302, { location: secret.url("/secret.png") }).end(),
  );
  await attack(attacked, () => loopbackAttack(attacked, secret, redirector));
  await Promise.all([secret.close(), redirector.close()]);
  await attack(attacked, () => archiveBombAttacks(attacked));
  // Items 7, 9 and 8 each in a rate-limit window of its own, so no one spends another's budget of new
  // variants (every request here comes from 127.0.0.1).
  await attack(attacked, () => enlargingTransforms(attacked));
  await nextWindow(attacked);
  await attack(attacked, () => deletedOriginal(attacked));
  await nextWindow(attacked);
  await attack(attacked, () => transformBurst(attacked, attacked.app.config.media.transforms.rateLimit));
  await attack(fetched, () => fetchBoundAttacks(fetched, bounds));
}

/** Waits out the current rate-limit window. */
const nextWindow = (target: Target) =>
  new Promise((resolve) => setTimeout(resolve, target.app.config.rateLimit.windowMs + 500));

try {
  console.log(
    `Node ${process.version}, load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(" ")}`,
  );
  build();
  const strict = await startTarget("default", {});
  const lenient = await startTarget("private-targets", {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    ...FETCH_SETTINGS,
  });
  const fetchConfig = lenient.app.config.imports.fetch;
  const bounds: FetchBounds = {
    connectTimeoutMs: fetchConfig.connectTimeoutMs,
    timeoutMs: fetchConfig.timeoutMs,
    maxBytes: lenient.app.config.media.maxBytes,
  };
  const transforms = strict.app.config.media.transforms;
  console.log(
    "servers: scripts/start-server.mjs, NODE_ENV=production, embedded database, a new DATA_DIR each\n" +
      `  default (pid ${strict.app.pid}): items 1, 2, 4, 7, 8, 9; MEDIA_TRANSFORM_RATE_LIMIT=${transforms.rateLimit} ` +
      `per ${strict.app.config.rateLimit.windowMs} ms, MEDIA_TRANSFORM_CONCURRENCY=${transforms.concurrency}\n` +
      `  private-targets (pid ${lenient.app.pid}): item 3; WEBHOOK_ALLOW_PRIVATE_TARGETS=true, ` +
      `IMPORT_FETCH_CONNECT_TIMEOUT_MS=${bounds.connectTimeoutMs}, IMPORT_FETCH_TIMEOUT_MS=${bounds.timeoutMs}, ` +
      `MEDIA_MAX_BYTES=${bounds.maxBytes}`,
  );

  await warmUp(strict);
  await warmUp(lenient);
  watches.push(...[strict, lenient].map((target) => new MemoryWatch(target.label, target.app.pid)));
  const idle = await Promise.all(watches.map((watch) => watch.idle()));
  console.log(
    `idle RSS after warm-up: ${watches.map((watch, i) => `${watch.label} ${mib(idle[i] ?? 0)}`).join(", ")}\n`,
  );
  for (const watch of watches) watch.start();

  for (let round = 1; round <= rounds; round++) {
    if (rounds > 1) console.log(`round ${round} of ${rounds}`);
    // Each round in workspaces of its own (its imports' records are new there) and, after the first,
    // in a fresh rate-limit window (the burst spent the previous one).
    const attacked = {
      ...strict,
      ws: round === 1 ? strict.ws : await strict.app.workspace(`Attacks ${round}`),
    };
    const fetched = {
      ...lenient,
      ws: round === 1 ? lenient.ws : await lenient.app.workspace(`Attacks ${round}`),
    };
    if (round > 1) await nextWindow(strict);
    await attackRound(attacked, fetched, bounds);
  }
  for (const watch of watches) watch.stop();

  // Memory after the attacks: a reading a second, kept at 10, 30 and 60 s (or the last second).
  const marks = [10, 30, 60].filter((second) => second < recoverSeconds).concat(recoverSeconds);
  const atMark = watches.map(() => new Map<number, number | null>());
  const backAt: (number | null)[] = watches.map(() => null);
  for (let second = 1; second <= recoverSeconds; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    watches.forEach((watch, i) => {
      const rss = rssBytes(watch.pid);
      if (marks.includes(second)) atMark[i]?.set(second, rss);
      if (backAt[i] === null && rss !== null && rss <= recoveryThreshold(idle[i] ?? 0)) backAt[i] = second;
    });
  }

  console.log(
    `\nmemory (VmRSS of the server process; rule: back within ${RECOVERY_RULE} in ${recoverSeconds} s)`,
  );
  console.log(
    `${"server".padEnd(17)}${"idle".padEnd(10)}${"peak seen".padEnd(11)}${"VmHWM".padEnd(10)}` +
      `${marks.map((second) => `+${second} s`.padEnd(10)).join("")}${"threshold".padEnd(11)}back`,
  );
  let memoryOk = true;
  watches.forEach((watch, i) => {
    const back = backAt[i];
    if (back === null) memoryOk = false;
    console.log(
      `${watch.label.padEnd(17)}${mib(idle[i] ?? 0).padEnd(10)}${mib(watch.peakSeen()).padEnd(11)}` +
        `${mib(highWaterBytes(watch.pid)).padEnd(10)}` +
        `${marks.map((second) => mib(atMark[i]?.get(second) ?? null).padEnd(10)).join("")}` +
        `${mib(recoveryThreshold(idle[i] ?? 0)).padEnd(11)}${back === null ? "NO" : `yes, at +${back} s`}`,
    );
  });

  const failed = verdicts.filter((verdict) => !verdict.ok);
  const died = servers.filter((server) => !server.running());
  console.log(
    `\n${verdicts.length - failed.length}/${verdicts.length} attacks as expected; servers ` +
      `${died.length === 0 ? "up" : `DIED: ${died.map((server) => server.pid).join(", ")}`}; memory ` +
      `${memoryOk ? "back" : "NOT back"}`,
  );
  if (failed.length > 0 || died.length > 0 || !memoryOk) process.exitCode = 1;
} finally {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(scratch, { recursive: true, force: true });
}
