// The embedded database (PGlite) runs on a thread of its own, and the service reaches it as it reaches a
// PostgreSQL server: node-postgres over a Unix socket (@electric-sql/pglite-socket), one connection.
//
// Why: PGlite runs PostgreSQL as WebAssembly, and each statement runs synchronously, start to end, on
// the thread that calls it. On the serving thread every statement stopped every request meanwhile,
// cached reads included: a draft save cost that thread ~18 ms (issue 38, `npm run bench:writers --
// --embedded`, its first line), an uncached read ~3.5 ms. On its own thread the statements run beside
// the requests, on the machine's other core.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";

export interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  startParams?: string[];
}

export type EmbeddedWorkerMessage =
  | { type: "ready" }
  | { type: "closed" }
  | { type: "failed"; message: string; stack?: string };

export interface EmbeddedWorker {
  /** The directory of the socket: node-postgres's `host` (it adds `.s.PGSQL.<port>`). */
  socketDirectory: string;
  port: number;
  /** Closes the database (a clean shutdown of PostgreSQL) and ends the thread. */
  close(): Promise<void>;
}

const PORT = 5432;

export async function startEmbeddedWorker(dataDir: string, startParams?: string[]): Promise<EmbeddedWorker> {
  // A new directory of mode 0700 (mkdtemp's): no other user of the machine can reach the socket. Under
  // the system's temporary directory, since a socket's path is limited to 107 bytes and DATA_DIR is not.
  const socketDirectory = mkdtempSync(path.join(tmpdir(), "content-db-"));
  const data: EmbeddedWorkerData = {
    dataDir,
    socketPath: path.join(socketDirectory, `.s.PGSQL.${PORT}`),
    ...(startParams ? { startParams } : {}),
  };
  const worker = workerFor(data);
  const removeSocketDirectory = () => rmSync(socketDirectory, { recursive: true, force: true });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once("message", (message: EmbeddedWorkerMessage) => {
        if (message.type === "ready") resolve();
        else if (message.type === "failed")
          reject(Object.assign(new Error(message.message), { stack: message.stack }));
      });
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`The embedded database's thread exited (${code})`)));
    });
  } catch (error) {
    await worker.terminate();
    removeSocketDirectory();
    throw error;
  }
  worker.removeAllListeners("exit");
  worker.removeAllListeners("error");
  // The database gone while the service runs: nothing can be answered; fail as an uncaught error would.
  worker.on("error", (error) => {
    throw error;
  });
  let closing: Promise<void> | undefined;
  return {
    socketDirectory,
    port: PORT,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          worker.once("message", () => resolve());
          worker.once("exit", () => resolve());
          worker.postMessage({ type: "close" });
        });
        await worker.terminate();
        removeSocketDirectory();
      })();
      return closing;
    },
  };
}

/**
 * The worker beside this file: src/db/embedded-worker.ts under tsx and vitest, embedded-worker.js beside
 * the bundle in a build (scripts/build-server.mjs, scripts/build-cli.mjs). A worker thread does not
 * inherit the TypeScript loader (`--import tsx`): its first module registers it (tsx's API) and then
 * imports the worker.
 */
function workerFor(workerData: EmbeddedWorkerData): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./embedded-worker.js", import.meta.url), { workerData });
  const entry = new URL("./embedded-worker.ts", import.meta.url).href;
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData });
}
