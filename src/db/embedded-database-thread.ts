// The embedded database's own thread (embedded-thread-supervisor.ts says why): PGlite opened on the data folder
// and served over PostgreSQL's wire protocol (embedded-wire-server.ts) on a Unix socket in a directory
// only this user can enter. It answers the supervisor's heartbeat between statements, so a statement
// that never ends is seen from outside.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import type {
  EmbeddedWorkerData,
  EmbeddedWorkerMessage,
  SupervisorMessage,
} from "./embedded-thread-supervisor.ts";
import { serveWireProtocol } from "./embedded-wire-server.ts";

const { dataDir, socketPath, startParams } = workerData as EmbeddedWorkerData;
const post = (message: EmbeddedWorkerMessage) => parentPort?.postMessage(message);
const describe = (error: unknown) => ({
  message: error instanceof Error ? error.message : String(error),
  stack: error instanceof Error ? error.stack : undefined,
});

try {
  const db = new PGlite(dataDir, startParams ? { startParams } : {});
  await db.waitReady;
  const server = await serveWireProtocol(db, socketPath, (error) => {
    // PGlite failed outside PostgreSQL's own error handling: its state is unknown, so this thread ends
    // and the supervisor starts a new one on the same data folder.
    post({ type: "fatal", ...describe(error) });
    process.exit(1);
  });
  parentPort?.on("message", async (message: SupervisorMessage) => {
    if (message.type === "ping") {
      post({ type: "pong" });
      return;
    }
    await server.close();
    await db.close();
    post({ type: "closed" });
  });
  post({ type: "ready" });
} catch (error) {
  post({ type: "failed", ...describe(error) });
}
