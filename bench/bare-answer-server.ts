// The yardstick of a cache hit (issue 59, goal 2): a bare node:http handler that sends answers held in
// memory, byte for byte the service's own (status line, headers, body), for the method and path they
// were captured at. No key check, no lookup beyond a Map, no log, no metrics: what sending the bytes
// costs on this stack. Env: PORT, HOST, BENCH_BARE_FILE (written by bench/hits.ts).
import { readFileSync } from "node:fs";
import http from "node:http";

export interface CapturedAnswer {
  method: string;
  path: string;
  status: number;
  /** The service's response headers in order, as [name, value] pairs, without Date and the connection's own. */
  headers: [string, string][];
  /** The body, base64. */
  body: string;
}

const file = process.env.BENCH_BARE_FILE;
const captured: CapturedAnswer[] = file ? JSON.parse(readFileSync(file, "utf8")) : [];
const answers = new Map(
  captured.map((answer) => [
    `${answer.method} ${answer.path}`,
    { status: answer.status, headers: answer.headers.flat(), body: Buffer.from(answer.body, "base64") },
  ]),
);

const server = http.createServer((req, res) => {
  if (req.url === "/ready") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  const answer = answers.get(`${req.method} ${req.url}`);
  if (!answer) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? "127.0.0.1");
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
