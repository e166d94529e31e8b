// The CLI's way into a running server on the embedded database, which the server holds exclusively: a
// Unix socket in the data folder, readable and writable by its owner only (like PostgreSQL's local
// socket or Docker's), over which the server runs a CLI command on its own database. The request is the
// command as JSON; the answer its JSON result, or the error it ended with (by name and message).
import http from "node:http";
import path from "node:path";
import type { CliCommand } from "./command.ts";

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, "cli.sock");
}

/** What the server answers: the command's result, or its error by name (the CLI's exit code follows it). */
export type ControlAnswer = { result: unknown } | { error: { name: string; message: string } };

/** Runs the command in the server behind `socketPath`; null when no server listens there. */
export function runThroughServer(socketPath: string, command: CliCommand): Promise<ControlAnswer | null> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(command);
    const req = http.request(
      {
        socketPath,
        path: "/run",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ControlAnswer);
          } catch {
            reject(new Error(`The server behind ${socketPath} answered something other than JSON`));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      // No socket, or a stale one left by a server that died: nobody to ask, the CLI opens the folder.
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(null);
      else reject(error);
    });
    req.end(body);
  });
}
