// The embedded database's own thread (embedded-in-worker.ts says why): PGlite opened on the data folder
// and served over PostgreSQL's wire protocol on a Unix socket in a directory only this user can enter.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { EmbeddedWorkerData, EmbeddedWorkerMessage } from "./embedded-in-worker.ts";

const { dataDir, socketPath, startParams } = workerData as EmbeddedWorkerData;
const post = (message: EmbeddedWorkerMessage) => parentPort?.postMessage(message);

try {
  const db = new PGlite(dataDir, startParams ? { startParams } : {});
  await db.waitReady;
  // One client: the service's pool holds a single connection (PGlite has one session, and a
  // transaction must not share it with another client's statements).
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 1 });
  await server.start();
  parentPort?.once("message", async () => {
    await server.stop();
    await db.close();
    post({ type: "closed" });
  });
  post({ type: "ready" });
} catch (error) {
  post({
    type: "failed",
    message: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
}
