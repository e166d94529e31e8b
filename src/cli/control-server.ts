// The server's side of the CLI's control socket (control-socket.ts): started by the server on the
// embedded database, it runs each command on the server's own database, so the CLI works while the
// server runs. Writes go through the same service functions (and so the one writer), and the server's
// caches hear of them at once (a revoked key is refused on the next request).
import { chmodSync, rmSync } from "node:fs";
import http from "node:http";
import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { EXPECTED_ERRORS, parseCliCommand } from "./command.ts";
import { runCommand } from "./commands.ts";
import type { ControlAnswer } from "./control-socket.ts";

/** A command is a few hundred bytes: anything much larger is not one. */
const MAX_REQUEST_BYTES = 64 * 1024;

export async function startControlServer(
  db: Database,
  socketPath: string,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  // The server holds the data folder's lock, so a socket file here is a dead server's.
  rmSync(socketPath, { force: true });
  const answer = async (text: string, signal: AbortSignal): Promise<ControlAnswer> => {
    try {
      const command = parseCliCommand(JSON.parse(text));
      logger.info("cli command", { command: command.command });
      return { result: await runCommand(db, command, undefined, { signal }) };
    } catch (error) {
      const { name, message } =
        error instanceof SyntaxError
          ? { name: "UsageError", message: "Invalid JSON" }
          : error instanceof Error
            ? error
            : new Error(String(error));
      if (!EXPECTED_ERRORS.has(name)) logger.error("cli command failed", { error: message });
      return { error: { name, message } };
    }
  };
  const server = http.createServer((req, res) => {
    // The CLI went away (killed, interrupted) before its answer: an import it ran stops, rather than
    // fetch and write on for nobody.
    const abandoned = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished)
        abandoned.abort(new Error("Stopped: the CLI that ran the command went away"));
    });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      void answer(Buffer.concat(chunks).toString("utf8"), abandoned.signal).then((body) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
  } catch (error) {
    // E.g. a DATA_DIR path too long for a Unix socket (about 100 bytes): the server still serves the
    // API; only the CLI cannot run beside it.
    logger.warn("no CLI control socket: the CLI cannot run while this server runs", {
      socketPath,
      error: error instanceof Error ? error.message : String(error),
    });
    return { close: async () => {} };
  }
  // Only this OS user may talk to it: access to the socket is the credential, as for the data folder.
  chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(socketPath, { force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
