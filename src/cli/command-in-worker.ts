// Export and import run in a worker thread whose young generation is kept small (issue 40: 10,000 posts
// and 1 GB of media under 300 MB of resident memory, on either store).
//
// Why a worker: V8 sizes a heap's young generation (where every parsed record, SQL parameter and
// sanitised body starts) when the heap is made, up to 16 MB per semi-space on 64-bit, and a bulk import
// keeps it full; that limit cannot be changed once the process runs (a flag set then is never read), but
// a worker's heap is made with the limits the worker is given. Measured on the embedded store, 2,000
// posts and 104 MB of media (`npm run bench:transfer -- --embedded --posts 2000 --media-mb 100`): the
// import peaked at 385 MB with V8's default and at 310 MB with 2 MB semi-spaces, in the same time.
// An embedded import's ANALYZE runs in a second worker after it (main.ts says why).
import { Worker } from "node:worker_threads";
import type { ProgressReporter } from "../transfer/progress.ts";
import { type CliCommand, RemoteCommandError } from "./command.ts";

/**
 * What a worker is asked to do: a command (an import may leave the planner statistics to a later task),
 * or the planner statistics of the tables an import left stale.
 */
export type WorkerTask =
  | { run: "command"; command: CliCommand; deferStatistics: boolean }
  | { run: "statistics" };

/** What the worker posts: progress as it goes, then its result or its error. */
export type WorkerMessage =
  | { type: "progress"; kind: string; done: number; total: number | null }
  | { type: "stop" }
  | { type: "result"; result: unknown }
  | { type: "error"; name: string; message: string; stack?: string };

/** The young generation of the worker's heap: two semi-spaces of 2 MB and their overhead. */
const YOUNG_GENERATION_MB = 6;

export function runInWorker(task: WorkerTask, progress: ProgressReporter): Promise<unknown> {
  // Beside this file: src/cli/ under tsx, dist/cli/ in the CLI's build (scripts/build-cli.mjs).
  const extension = import.meta.url.endsWith(".ts") ? "ts" : "js";
  const worker = new Worker(new URL(`./command-worker.${extension}`, import.meta.url), {
    workerData: task,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  return new Promise((resolve, reject) => {
    let outcome: { result: unknown } | { error: Error } | undefined;
    worker.on("message", (message: WorkerMessage) => {
      if (message.type === "progress") progress.update(message.kind, message.done, message.total);
      else if (message.type === "stop") progress.stop();
      else if (message.type === "result") outcome = { result: message.result };
      else outcome = { error: new RemoteCommandError(message.name, message.message, message.stack) };
    });
    worker.on("error", (error) => {
      outcome ??= { error };
    });
    worker.on("exit", (code) => {
      if (outcome && "result" in outcome) resolve(outcome.result);
      else reject(outcome?.error ?? new Error(`The command's worker exited with code ${code} and no result`));
    });
  });
}
