// The server's side of the CLI's control socket (control-socket.ts): started by the server on the
// embedded database, it runs each command with the server's own database, so the CLI works while the
// server runs — writes through the same service functions, and the server's caches hear of them at once.
import { chmodSync, rmSync } from "node:fs";
import http from "node:http";
import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { type ParsedArgs, runCommand } from "./commands.ts";
import type { ControlAnswer } from "./control-socket.ts";

/** Errors a command ends with on a user's input: passed back by name and message, not logged. */
const EXPECTED_ERRORS = new Set(["UsageError", "WorkspaceNotFoundError", "ApiKeyNotFoundError"]);

export async function startControlServer(
  db: Database,
  socketPath: string,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  // The server holds the data folder's lock: a socket file here is a dead server's.
  rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void answer(Buffer.concat(chunks).toString("utf8")).then((body) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
    });
  });
  const answer = async (text: string): Promise<ControlAnswer> => {
    try {
      const args = JSON.parse(text) as ParsedArgs;
      logger.info("cli command", { command: args.positional.slice(0, 2).join(" ") });
      return { result: await runCommand(db, args) };
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      if (!EXPECTED_ERRORS.has(name)) logger.error("cli command failed", { error: message });
      return { error: { name, message } };
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  // Only this OS user may talk to it: the socket is the credential.
  chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
