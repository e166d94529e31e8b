// The embedded database (PGlite) runs on a thread of its own, and the service reaches it as it reaches a
// PostgreSQL server: node-postgres over a Unix socket (embedded-wire-server.ts), one connection.
//
// Why: PGlite runs PostgreSQL as WebAssembly, and each statement runs synchronously, start to end, on
// the thread that calls it. On the serving thread every statement stopped every request meanwhile,
// cached reads included: a draft save cost that thread ~18 ms (issue 38, `npm run bench:writers --
// --embedded`, its first line), an uncached read ~3.5 ms. On its own thread the statements run beside
// the requests, on the machine's other core.
//
// The thread is supervised, as a PostgreSQL server is by its postmaster: if it dies (PGlite failed
// outside PostgreSQL's error handling, or it was terminated) or stops answering its heartbeat for
// EMBEDDED_WATCHDOG_MS, the outage is logged once, `isUp()` says so (/ready answers 503), and the thread
// is started again on the same data folder and socket, where PGlite replays its write-ahead log as
// PostgreSQL does after a crash: every committed write is there. Requests meanwhile fail fast (the
// socket refuses them) and are answered 503; the pool's next connection reaches the new thread.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";

export interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  startParams?: string[];
}

/** What the thread posts. */
export type EmbeddedWorkerMessage =
  | { type: "ready" }
  | { type: "pong" }
  | { type: "closed" }
  | { type: "failed"; message: string; stack?: string }
  | { type: "fatal"; message: string; stack?: string };

/** What the supervisor posts to the thread. */
export type SupervisorMessage = { type: "ping" } | { type: "close" };

export interface EmbeddedWorker {
  /** The directory of the socket: node-postgres's `host` (it adds `.s.PGSQL.<port>`). */
  socketDirectory: string;
  port: number;
  /** Whether the database's thread runs and answers its heartbeat (readiness). */
  isUp(): boolean;
  /** Ends the thread at once, as a crash would; the supervisor starts it again (tests). */
  kill(): Promise<void>;
  /** Resolves when the thread is up (at once when it is). */
  whenUp(): Promise<void>;
  /** Closes the database (a clean shutdown of PostgreSQL) and ends the thread; no restart after. */
  close(): Promise<void>;
}

export interface SupervisionOptions {
  /** A thread that has not answered its heartbeat for this long is ended and started again; 0: never. */
  watchdogMs: number;
  onOutage?: (message: string, fields: Record<string, unknown>) => void;
  onRecovery?: (message: string, fields: Record<string, unknown>) => void;
  /** A restart that failed (the outage goes on; it is tried again later). */
  onRestartFailed?: (message: string, fields: Record<string, unknown>) => void;
}

const PORT = 5432;
const HEARTBEAT_MS = 1_000;
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 5_000;

export async function startEmbeddedWorker(
  dataDir: string,
  startParams: string[] | undefined,
  supervision: SupervisionOptions,
): Promise<EmbeddedWorker> {
  // A new directory of mode 0700 (mkdtemp's): no other user of the machine can reach the socket. Under
  // the system's temporary directory, since a socket's path is limited to 107 bytes and DATA_DIR is not.
  const socketDirectory = mkdtempSync(path.join(tmpdir(), "content-db-"));
  const data: EmbeddedWorkerData = {
    dataDir,
    socketPath: path.join(socketDirectory, `.s.PGSQL.${PORT}`),
    ...(startParams ? { startParams } : {}),
  };
  const removeSocketDirectory = () => rmSync(socketDirectory, { recursive: true, force: true });
  let worker: Worker;
  try {
    worker = await startThread(data);
  } catch (error) {
    removeSocketDirectory();
    throw error;
  }

  let up = true;
  let closing: Promise<void> | undefined;
  let lastAnswerAt = Date.now();
  let pingOutstanding = false;
  let lastFatal: string | undefined;
  let waitingForUp: Array<() => void> = [];

  const markUp = () => {
    up = true;
    lastAnswerAt = Date.now();
    pingOutstanding = false;
    for (const resolve of waitingForUp) resolve();
    waitingForUp = [];
  };

  const watch = (thread: Worker) => {
    thread.on("message", (message: EmbeddedWorkerMessage) => {
      if (message.type === "pong") {
        lastAnswerAt = Date.now();
        pingOutstanding = false;
      } else if (message.type === "fatal") lastFatal = message.message;
    });
    // An 'error' is followed by 'exit'; without a listener it would end the whole process.
    thread.on("error", (error) => {
      lastFatal ??= error.message;
    });
    thread.once("exit", (code) => {
      if (closing || thread !== worker) return;
      if (up) {
        up = false;
        supervision.onOutage?.("the embedded database's thread stopped; starting it again", {
          exitCode: code,
          ...(lastFatal ? { error: lastFatal } : {}),
          dataDir,
        });
      }
      lastFatal = undefined;
      void restart(Date.now());
    });
  };

  const restart = async (downSince: number) => {
    for (let attempt = 0; !closing; attempt++) {
      await new Promise((r) =>
        setTimeout(r, Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** attempt)),
      );
      if (closing) return;
      try {
        worker = await startThread(data);
      } catch (error) {
        supervision.onRestartFailed?.("the embedded database's thread did not start again; retrying", {
          error: error instanceof Error ? error.message : String(error),
          attempt: attempt + 1,
        });
        continue;
      }
      if (closing) {
        await closeThread(worker);
        return;
      }
      watch(worker);
      markUp();
      supervision.onRecovery?.("the embedded database is back", { downMs: Date.now() - downSince });
      return;
    }
  };

  watch(worker);
  const heartbeat = setInterval(() => {
    if (!up || closing) return;
    if (pingOutstanding && supervision.watchdogMs > 0 && Date.now() - lastAnswerAt > supervision.watchdogMs) {
      up = false;
      supervision.onOutage?.("the embedded database's thread stopped answering; starting it again", {
        silentMs: Date.now() - lastAnswerAt,
        dataDir,
      });
      // Its 'exit' starts the new thread (the outage is already told).
      void worker.terminate();
      return;
    }
    if (!pingOutstanding) {
      pingOutstanding = true;
      worker.postMessage({ type: "ping" } satisfies SupervisorMessage);
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return {
    socketDirectory,
    port: PORT,
    isUp: () => up && !closing,
    async kill() {
      await worker.terminate();
    },
    whenUp() {
      return up ? Promise.resolve() : new Promise<void>((resolve) => waitingForUp.push(resolve));
    },
    close() {
      closing ??= (async () => {
        clearInterval(heartbeat);
        await closeThread(worker);
        removeSocketDirectory();
      })();
      return closing;
    },
  };
}

/** A new thread on the data folder, once it serves the socket. */
async function startThread(data: EmbeddedWorkerData): Promise<Worker> {
  const worker = workerFor(data);
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
    throw error;
  }
  worker.removeAllListeners("message");
  worker.removeAllListeners("exit");
  worker.removeAllListeners("error");
  return worker;
}

/** Asks the thread to close PGlite cleanly, then ends it (at once if it has already ended). */
async function closeThread(worker: Worker): Promise<void> {
  // Ended already (terminated, or died and not yet replaced): nothing to ask.
  if (worker.threadId < 0) return;
  await new Promise<void>((resolve) => {
    // Not `once`: a heartbeat's answer may come first.
    worker.on("message", (message: EmbeddedWorkerMessage) => {
      if (message.type === "closed") resolve();
    });
    worker.once("exit", () => resolve());
    worker.postMessage({ type: "close" } satisfies SupervisorMessage);
  });
  await worker.terminate();
}

/**
 * The worker beside this file: src/db/embedded-database-thread.ts under tsx and vitest, embedded-database-thread.js beside
 * the bundle in a build (scripts/build-server.mjs, scripts/build-cli.mjs). A worker thread does not
 * inherit the TypeScript loader (`--import tsx`): its first module registers it (tsx's API) and then
 * imports the worker.
 */
function workerFor(workerData: EmbeddedWorkerData): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./embedded-database-thread.js", import.meta.url), { workerData });
  const entry = new URL("./embedded-database-thread.ts", import.meta.url).href;
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData });
}
