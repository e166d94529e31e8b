// What every attack of `npm run bench:hostile` works with: a running server process and a workspace
// of it, the CLI's import against it, uploads, and the checks after an attack (the server still up).
import type { ImportSummary } from "../../src/transfer/import-summary.ts";
import type { CliRun, ServerProcessApp } from "../../test/helpers/server-process-app.ts";
import type { TestWorkspace } from "../../test/helpers/test-app.ts";

export interface Target {
  label: string;
  app: ServerProcessApp;
  ws: TestWorkspace;
  /** A folder of this run's own files (payloads, the marker a front matter would write). */
  scratch: string;
}

/** One attack's line of the report. */
export interface Verdict {
  attack: string;
  expected: string;
  seen: string;
  ms: number;
  ok: boolean;
}

export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

export interface ImportRun extends CliRun {
  /** The summary the CLI printed, when it printed one (a refused source prints none). */
  summary: ImportSummary | undefined;
}

/** `content-gateway import <source> --from <from> --workspace <slug>`, as a user types it beside the server. */
export async function cliImport(
  target: Target,
  source: string,
  from: "archive" | "markdown",
  { dryRun = false, timeoutMs = 120_000 } = {},
): Promise<ImportRun> {
  const args = ["import", source, "--from", from, "--workspace", target.ws.slug];
  const run = await target.app.cli(dryRun ? [...args, "--dry-run"] : args, { timeoutMs });
  let summary: ImportSummary | undefined;
  try {
    summary = JSON.parse(run.stdout) as ImportSummary;
  } catch {
    summary = undefined;
  }
  return { ...run, summary };
}

/** The reasons of the failed records of `kind`, each URL of `urls` replaced by <url>. */
export function failureReasons(
  summary: ImportSummary | undefined,
  kind: string,
  urls: readonly string[] = [],
) {
  return (summary?.failures ?? [])
    .filter((failure) => failure.kind === kind)
    .map((failure) => urls.reduce((reason, url) => reason.replaceAll(url, "<url>"), failure.reason));
}

export interface UploadedMedia {
  id: string;
  url: string;
}

export async function upload(target: Target, bytes: Uint8Array, filename: string): Promise<UploadedMedia> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), filename);
  const response = await fetch(`${target.app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: target.ws.privateKey },
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`upload of ${filename}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { media: UploadedMedia }).media;
}

/**
 * Whether the server still serves: running, GET /ready 200 and a normal read (a page of posts with the
 * workspace's key) 200. Null when it does, else what failed.
 */
export async function stillServing(target: Target): Promise<string | null> {
  if (!target.app.running()) return "the server process has exited";
  const status = async (path: string, key?: string) =>
    fetch(`${target.app.url}${path}`, key ? { headers: { authorization: key } } : {}).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status;
      },
      (error: Error) => error.message,
    );
  const ready = await status("/ready");
  const read = await status("/v1/posts?limit=1", target.ws.privateKey);
  return ready === 200 && read === 200 ? null : `GET /ready ${ready}, GET /v1/posts ${read}`;
}
