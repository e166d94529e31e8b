// The worker thread the CLI runs export and import in (command-in-worker.ts): the same run as in the main
// thread (run-locally.ts), its progress and its outcome posted to the main thread, which prints them.
import { parentPort, workerData } from "node:worker_threads";
import type { ProgressReporter } from "../transfer/progress.ts";
import type { WorkerMessage, WorkerTask } from "./command-in-worker.ts";
import { analyzeLocally, runLocally } from "./run-locally.ts";

const port = parentPort;
if (!port) throw new Error("command-worker.ts runs as a worker thread");
const post = (message: WorkerMessage) => port.postMessage(message);
const progress: ProgressReporter = {
  update: (kind, done, total) => post({ type: "progress", kind, done, total }),
  stop: () => post({ type: "stop" }),
};
const task = workerData as WorkerTask;
try {
  const result =
    task.run === "command"
      ? await runLocally(task.command, progress, { deferStatistics: task.deferStatistics })
      : await analyzeLocally();
  post({ type: "result", result });
} catch (error) {
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  post({ type: "error", name, message, ...(stack ? { stack } : {}) });
}
