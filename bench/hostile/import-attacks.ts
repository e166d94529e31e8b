// Issue 60 items 1–4 against a running server, through the CLI beside it (on the embedded store the
// import runs inside the server process): front matter that would run code or explode, media URLs at
// loopback in any spelling, fetches that never end, archives that decompress without end.
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHUNK_RECORDS, MAX_LINE_BYTES, MAX_MANIFEST_BYTES } from "../../src/transfer/format.ts";
import { archiveBomb, paddedManifest } from "../../test/transfer/helpers/archive-bombs.ts";
import {
  dripping,
  markdownWithCovers,
  neverAnswers,
  streaming,
  type TestHost,
  testHost,
} from "../../test/transfer/helpers/remote-hosts.ts";
import { cliImport, failureReasons, type Target, timed, type Verdict } from "./target.ts";

const FRONT_MATTER_FIXTURES = fileURLToPath(
  new URL("../../test/transfer/fixtures/markdown-front-matter/", import.meta.url),
);
const MIB = 1024 * 1024;

/**
 * Item 1 (and item 4's YAML half): a markdown folder whose `---js` and `---javascript` files would
 * write a marker file holding process.env and take the admin token as their title, beside an alias
 * bomb (507 bytes, 1.4 GB expanded) and a plain YAML file. Run as a dry run, then for real.
 */
export async function frontMatterAttack(target: Target): Promise<Verdict> {
  const folder = path.join(target.scratch, "front-matter");
  const marker = path.join(target.scratch, "front-matter-ran.json");
  mkdirSync(folder, { recursive: true });
  for (const name of ["alias-bomb.md", "plain-yaml.md"])
    copyFileSync(path.join(FRONT_MATTER_FIXTURES, name), path.join(folder, name));
  const script = (fence: string, slug: string) =>
    `---${fence}\n{ title: (process.getBuiltinModule("fs").writeFileSync(${JSON.stringify(marker)}, ` +
    `JSON.stringify(process.env)), process.env.ADMIN_TOKEN), slug: "${slug}" }\n---\n\nRuns in the importer.\n`;
  writeFileSync(path.join(folder, "runs-js.md"), script("js", "ran-js"));
  writeFileSync(path.join(folder, "runs-javascript.md"), script("javascript", "ran-javascript"));

  const [runs, ms] = await timed(async () => [
    await cliImport(target, folder, "markdown", { dryRun: true }),
    await cliImport(target, folder, "markdown"),
  ]);
  const seen: string[] = [];
  let ok = true;
  for (const run of runs) {
    const reasons = Object.fromEntries(
      (run.summary?.failures ?? []).map((failure) => [failure.name, failure.reason]),
    );
    const posts = run.summary?.byKind.post;
    const refused =
      /marked "js": only YAML/.test(reasons["runs-js.md"] ?? "") &&
      /marked "javascript": only YAML/.test(reasons["runs-javascript.md"] ?? "") &&
      /Excessive alias/.test(reasons["alias-bomb.md"] ?? "");
    ok &&= run.code === 1 && refused && posts?.created === 1 && posts.failed === 3;
    seen.push(
      `${run.summary?.dryRun ? "dry run" : "import"}: exit ${run.code}, posts ${posts?.created ?? "?"} created / ` +
        `${posts?.failed ?? "?"} failed, ${refused ? "3 refused with their reasons" : `reasons ${JSON.stringify(reasons)}`}`,
    );
  }
  const markerWritten = existsSync(marker);
  const ranPosts = await Promise.all(
    ["ran-js", "ran-javascript"].map(async (slug) => {
      const res = await target.app.request("GET", `/v1/posts/${slug}?status=all`, {
        key: target.ws.privateKey,
      });
      return res.status;
    }),
  );
  ok &&= !markerWritten && ranPosts.every((status) => status === 404);
  seen.push(
    `marker ${markerWritten ? "WRITTEN" : "never written"}, posts ran-js/ran-javascript ${ranPosts.join("/")}`,
  );
  return {
    attack: "1 front matter ---js/---javascript + YAML alias bomb",
    expected: "exit 1, 3 failed records with reasons, 1 created, no marker, no ran-* post",
    seen: seen.join("; "),
    ms,
    ok,
  };
}

/**
 * Item 2: covers at loopback (dotted, decimal, octal, IPv4-mapped, localhost) and one at a loopback
 * host that redirects to the secret, on a server that refuses private targets. The redirector is on
 * loopback too (a public name needs a stubbed DNS answer, which only the in-process tests have), so it
 * is refused at its own hop; import-fetch-targets.test.ts checks redirects from a public host.
 */
export async function loopbackAttack(
  target: Target,
  secret: TestHost,
  redirector: TestHost,
): Promise<Verdict> {
  const port = secret.port;
  const urls = [
    `http://127.0.0.1:${port}/secret.png`,
    `http://2130706433:${port}/secret.png`,
    `http://0177.0.0.1:${port}/secret.png`,
    `http://[::ffff:127.0.0.1]:${port}/secret.png`,
    `http://localhost:${port}/secret.png`,
    redirector.url("/to-secret"),
  ];
  const covers = markdownWithCovers(urls);
  try {
    const [run, ms] = await timed(() => cliImport(target, covers.folder, "markdown"));
    const reasons = failureReasons(run.summary, "media", urls);
    const distinct = [...new Set(reasons)];
    const media = await target.app.request("GET", "/v1/media", { key: target.ws.privateKey });
    const published = media.body?.media?.length ?? "?";
    const ok =
      reasons.length === urls.length &&
      distinct.length === 1 &&
      /^<url> is not fetched: an import fetches http\(s\) URLs at public addresses only/.test(
        distinct[0] ?? "",
      ) &&
      secret.connections === 0 &&
      redirector.connections === 0 &&
      published === 0;
    return {
      attack: "2 media URLs at loopback (dotted, decimal, octal, mapped, localhost, redirector)",
      expected: `${urls.length} media refused with one reason, 0 connections, 0 media published`,
      seen:
        `exit ${run.code}, ${reasons.length} media failed with ${distinct.length} reason(s) ` +
        `(${JSON.stringify(distinct[0] ?? run.stderr.trim())}), connections: secret ${secret.connections}, ` +
        `redirector ${redirector.connections}, media published ${published}`,
      ms,
      ok,
    };
  } finally {
    covers.remove();
  }
}

export interface FetchBounds {
  connectTimeoutMs: number;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * Item 3 on a server that allows private targets: a cover that never answers, one that drips a byte a
 * second, one that streams 1.5 GB. Each record fails at the deadline or the byte cap and the connection
 * is dropped; the import goes on (its post is created).
 */
export async function fetchBoundAttacks(target: Target, bounds: FetchBounds): Promise<Verdict[]> {
  const expectedReason =
    `<url> could not be fetched (no usable answer within ${bounds.timeoutMs / 1000} s and ` +
    `${bounds.maxBytes / MIB} MiB)`;
  const cases = [
    { name: "never answers", handler: neverAnswers },
    { name: "drips a byte a second", handler: dripping(1_000) },
    { name: "streams 1.5 GB", handler: streaming(1.5 * 1024 * MIB) },
  ];
  const verdicts: Verdict[] = [];
  for (const { name, handler } of cases) {
    const host = await testHost(handler);
    try {
      const url = host.url("/cover.png");
      const covers = markdownWithCovers([url]);
      // A workspace per case: each case's post is new there.
      const into = { ...target, ws: await target.app.workspace(`Fetch that ${name}`) };
      const [run, ms] = await timed(() => cliImport(into, covers.folder, "markdown"));
      covers.remove();
      const dropped = await eventually(() => host.open === 0, 5_000);
      const reasons = failureReasons(run.summary, "media", [url]);
      // Its post is imported all the same, without its cover.
      const posts = run.summary?.byKind.post;
      const postGoesOn = posts?.created === 1 && posts.failed === 0;
      // The socket buffers on both sides hold a few megabytes beyond what the reader took.
      const sentBound = bounds.maxBytes + 16 * MIB;
      const ok =
        reasons.length === 1 &&
        reasons[0] === expectedReason &&
        postGoesOn &&
        ms < bounds.timeoutMs + 10_000 &&
        dropped &&
        host.bytesSent < sentBound;
      verdicts.push({
        attack: `3 a media URL that ${name}`,
        expected: `failed "${expectedReason}" within ${bounds.timeoutMs / 1000} s (+10 s of import), connection dropped, < ${sentBound / MIB} MiB sent`,
        seen:
          `exit ${run.code}, ${JSON.stringify(reasons[0] ?? run.stderr.trim())}, its post ` +
          `${postGoesOn ? "imported" : `NOT imported (${JSON.stringify(posts)})`}, ` +
          `connection ${dropped ? "dropped" : "STILL OPEN"}, ` +
          `${host.bytesSent < MIB ? `${host.bytesSent} bytes` : `${(host.bytesSent / MIB).toFixed(1)} MiB`} sent`,
        ms,
        ok,
      });
    } finally {
      await host.close();
    }
  }
  return verdicts;
}

/**
 * Item 4: three archives, each refused as it streams: a record chunk of 300 MB of newlines (a few
 * hundred KB gzipped), a single line just over MAX_LINE_BYTES, a manifest over its cap.
 */
export async function archiveBombAttacks(target: Target): Promise<Verdict[]> {
  const cases = [
    {
      name: "300 MB of newlines in a record chunk",
      build: () => archiveBomb("tag/000001.ndjson", 10, 300 * MIB),
      refusal: `tag/000001.ndjson has more than ${CHUNK_RECORDS} lines`,
    },
    {
      name: `one line of ${MAX_LINE_BYTES / MIB + 1} MiB`,
      build: () => archiveBomb("tag/000001.ndjson", 32, MAX_LINE_BYTES + MIB),
      refusal: `tag/000001.ndjson line 1 is longer than ${MAX_LINE_BYTES} bytes`,
    },
    {
      name: "a manifest over 1 MiB",
      build: () => archiveBomb("tag/000001.ndjson", 10, 1, paddedManifest(MAX_MANIFEST_BYTES + 64 * 1024)),
      refusal: `manifest.json is larger than ${MAX_MANIFEST_BYTES} bytes`,
    },
  ];
  const verdicts: Verdict[] = [];
  for (const [index, { name, build, refusal }] of cases.entries()) {
    const file = path.join(target.scratch, `bomb-${index}.tar.gz`);
    const archive = await build();
    writeFileSync(file, archive);
    const [run, ms] = await timed(() => cliImport(target, file, "archive"));
    const tags = await target.app.request("GET", "/v1/tags", { key: target.ws.privateKey });
    const tagCount = tags.body?.tags?.length ?? "?";
    verdicts.push({
      attack: `4 archive: ${name} (${(archive.byteLength / 1024).toFixed(0)} KB gzipped)`,
      expected: `refused: "${refusal}…", nothing imported`,
      seen: `exit ${run.code}, ${JSON.stringify(run.stderr.trim().slice(0, 160))}, tags ${tagCount}`,
      ms,
      ok: run.code !== 0 && run.stderr.includes(refusal) && tagCount === 0,
    });
  }
  return verdicts;
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
