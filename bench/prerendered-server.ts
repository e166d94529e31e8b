// The cache yardstick: the fastest thing a server on this stack can do for a read — a bare node:http
// handler that checks the API key like the service does (SHA-256 lookup, cached) and answers with JSON
// rendered in advance, read from one table by one indexed lookup per request. The service's response
// cache must serve its cached answers at least this fast (issue 15).
//
// At start it fills its table from BENCH_PRERENDERED_FILE (written by bench/run.ts from the service's own
// answers, so the bodies are byte-identical): [{ key, method, path, requestBody, body }]. Same database
// access as the baseline (bench/raw-sql.ts). Env: PORT, HOST, BENCH_PRERENDERED_FILE, and the database
// variables of bench/raw-sql.ts.
import { readFileSync } from "node:fs";
import http from "node:http";
import { keyChecker, openSql } from "./raw-sql.ts";

export interface PrerenderedAnswer {
  key: string;
  method: string;
  path: string;
  requestBody: string | null;
  body: string;
}

const TABLE_SQL = `CREATE TABLE IF NOT EXISTS "BenchPrerendered" (
  "workspaceId" text NOT NULL, request text NOT NULL, body text NOT NULL,
  PRIMARY KEY ("workspaceId", request))`;
const FILL_SQL = `INSERT INTO "BenchPrerendered" ("workspaceId", request, body) VALUES ($1, $2, $3)
  ON CONFLICT ("workspaceId", request) DO UPDATE SET body = excluded.body`;
const READ_SQL = `SELECT body FROM "BenchPrerendered" WHERE "workspaceId" = $1 AND request = $2`;

/** One row per request: method, path and (for a POST) its body. */
const requestName = (method: string, path: string, body: string | null) =>
  body ? `${method} ${path} ${body}` : `${method} ${path}`;

const sql = await openSql();

const workspaceOf = keyChecker(sql);

await sql.query(TABLE_SQL, []);
const file = process.env.BENCH_PRERENDERED_FILE;
const answers: PrerenderedAnswer[] = file ? JSON.parse(readFileSync(file, "utf8")) : [];
for (const answer of answers) {
  const workspaceId = await workspaceOf(answer.key);
  if (!workspaceId) throw new Error(`prerendered: unknown key for ${answer.path}`);
  await sql.query(FILL_SQL, [
    workspaceId,
    requestName(answer.method, answer.path, answer.requestBody),
    answer.body,
  ]);
}

function send(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function answer(req: http.IncomingMessage, res: http.ServerResponse, requestBody: string | null) {
  if (req.url === "/ready") return send(res, 200, '{"status":"ready"}');
  const workspaceId = await workspaceOf(req.headers.authorization);
  if (!workspaceId) return send(res, 401, '{"error":"Unauthorized"}');
  const rows = await sql.query<{ body: string }>(READ_SQL, [
    workspaceId,
    requestName(req.method ?? "GET", req.url ?? "/", requestBody),
  ]);
  const row = rows[0];
  if (!row) return send(res, 404, '{"error":"Not found"}');
  send(res, 200, row.body);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const requestBody = chunks.length ? Buffer.concat(chunks).toString("utf8") : null;
    answer(req, res, requestBody).catch((error: unknown) => {
      process.stderr.write(`prerendered: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent) send(res, 500, '{"error":"Internal server error"}');
    });
  });
});

server.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? "127.0.0.1");

const shutdown = () => {
  server.close(() => {
    void sql.close().then(() => process.exit(0));
  });
  server.closeIdleConnections();
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
