// The embedded store's socket hop, by itself (`npm run bench:stores`, issue 59 goal 3): one statement's
// round trip, one after another, three ways, each with the code the server uses:
// - socket: PGlite on its own thread behind the wire server (`startEmbeddedWorker`,
//   src/db/embedded-thread-supervisor.ts), reached by node-postgres over one connection through
//   `pgExecutor`, as `openEmbeddedDatabase` does;
// - database's own work: the very frontend messages node-postgres sends for it (Parse, Bind, Describe,
//   Execute, Sync) run in PGlite on this thread by the wire server's `runFrontendMessages`, what the
//   database's thread does per statement;
// - in-process driver: PGlite on this thread through `pgliteExecutor` (its own driver: the memory store,
//   and the embedded store before a242f53).
// The hop is socket − the database's own work: node-postgres encoding the statement and parsing its
// answer, the socket's writes and reads on both sides, the wire server's framing, two threads woken.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { embeddedPool } from "../src/db/embedded-database.ts";
import { startEmbeddedWorker } from "../src/db/embedded-thread-supervisor.ts";
import { runFrontendMessages } from "../src/db/embedded-wire-server.ts";
import { pgExecutor, pgliteExecutor, type SqlExecutor } from "../src/db/sql-executor.ts";

export interface HopStatement {
  label: string;
  sql: string;
  /** Text parameters (sent as text, as node-postgres sends a number or a string). */
  params: string[];
}

/**
 * A trivial statement, with a parameter so both sides take the extended protocol (Parse, Bind, Execute,
 * Sync) as the service's statements do; and one whose answer is about a list page's size on the wire.
 */
export const HOP_STATEMENTS: HopStatement[] = [
  { label: "SELECT $1::int", sql: "SELECT $1::int AS one", params: ["1"] },
  { label: "32 KB text", sql: "SELECT repeat('x', $1::int) AS page", params: [String(32 * 1024)] },
];

/** One side's figures for a statement: medians of blocks, per statement. */
export interface HopSide {
  wallUs: number;
  /** CPU of this whole process (all threads: the PGlite thread included) per statement. */
  cpuUs: number;
}

export const HOP_SIDES = ["socket", "database", "driver"] as const;
export type HopSideName = (typeof HOP_SIDES)[number];

export interface HopFigures {
  statement: HopStatement;
  sides: Record<HopSideName, HopSide>;
  /** Each block's socket − database wall time per statement, for the spread. */
  blockHopsUs: number[];
}

/**
 * Runs each statement `perBlock` times in a row on each side in turn, for `blocks` blocks (the order
 * mirrored every other block), on two copies of `dataDir` (nothing may have it open): one behind the
 * socket, one on this thread for the other two sides.
 */
export async function measureSocketHop(
  dataDir: string,
  options: { blocks: number; perBlock: number },
): Promise<HopFigures[]> {
  const scratch = mkdtempSync(path.join(tmpdir(), "bench-hop-"));
  const [local, threaded] = ["in-process", "socket"].map((name) => {
    const copy = path.join(scratch, name);
    cpSync(dataDir, copy, { recursive: true });
    return copy;
  }) as [string, string];
  const inProcess = new PGlite(local);
  const worker = await startEmbeddedWorker(threaded, undefined, { watchdogMs: 0 });
  const pool = embeddedPool(worker);
  try {
    await inProcess.waitReady;
    const socket = pgExecutor(pool);
    const driver = pgliteExecutor(inProcess);
    const figures: HopFigures[] = [];
    for (const statement of HOP_STATEMENTS) {
      const messages = extendedQuery(statement.sql, statement.params);
      const run: Record<HopSideName, () => Promise<unknown>> = {
        socket: () => socket.query(statement.sql, statement.params),
        database: () => runFrontendMessages(inProcess, messages),
        driver: () => driver.query(statement.sql, statement.params),
      };
      await expectSameRows(statement, socket, await runFrontendMessages(inProcess, messages));
      // Warm every side: plans cached, the connection open, the code optimised.
      for (const name of HOP_SIDES) await runBlock(run[name], options.perBlock);
      const blocks: Record<HopSideName, HopSide>[] = [];
      for (let block = 0; block < options.blocks; block++) {
        const order = block % 2 === 0 ? HOP_SIDES : [...HOP_SIDES].reverse();
        const figuresOfBlock = {} as Record<HopSideName, HopSide>;
        for (const name of order) figuresOfBlock[name] = await runBlock(run[name], options.perBlock);
        blocks.push(figuresOfBlock);
      }
      const sides = {} as Record<HopSideName, HopSide>;
      for (const name of HOP_SIDES) sides[name] = medianSide(blocks.map((b) => b[name]));
      figures.push({
        statement,
        sides,
        blockHopsUs: blocks.map((b) => b.socket.wallUs - b.database.wallUs),
      });
    }
    return figures;
  } finally {
    await pool.end().catch(() => {});
    await worker.close().catch(() => {});
    await inProcess.close().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function runBlock(once: () => Promise<unknown>, count: number): Promise<HopSide> {
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  for (let n = 0; n < count; n++) await once();
  const wallMs = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  return { wallUs: (wallMs * 1000) / count, cpuUs: (cpu.user + cpu.system) / count };
}

export function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

function medianSide(sides: HopSide[]): HopSide {
  return { wallUs: median(sides.map((s) => s.wallUs)), cpuUs: median(sides.map((s) => s.cpuUs)) };
}

/**
 * The messages node-postgres sends for an unnamed statement with text parameters (protocol-message-formats):
 * Parse, Bind, Describe (portal), Execute, Sync.
 */
function extendedQuery(sql: string, params: string[]): Buffer {
  const cstring = (text: string) => Buffer.concat([Buffer.from(text, "utf8"), Buffer.from([0])]);
  const int16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
  const int32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const message = (type: string, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
  };
  const values = params.flatMap((p) => [int32(Buffer.byteLength(p)), Buffer.from(p, "utf8")]);
  return Buffer.concat([
    message("P", cstring(""), cstring(sql), int16(0)),
    message("B", cstring(""), cstring(""), int16(0), int16(params.length), ...values, int16(0)),
    message("D", Buffer.from("P"), cstring("")),
    message("E", cstring(""), int32(0)),
    message("S"),
  ]);
}

/** The raw answer holds the row the socket's answers (a DataRow, no ErrorResponse): both ran the statement. */
async function expectSameRows(statement: HopStatement, socket: SqlExecutor, raw: Buffer): Promise<void> {
  const rows = await socket.query<Record<string, unknown>>(statement.sql, statement.params);
  const value = String(Object.values(rows[0] ?? {})[0]);
  const types = new Set<string>();
  for (let offset = 0; offset + 5 <= raw.length; offset += 1 + raw.readInt32BE(offset + 1))
    types.add(String.fromCharCode(raw[offset] as number));
  if (types.has("E") || !types.has("D") || !raw.includes(Buffer.from(value)))
    throw new Error(`${statement.label}: the raw messages did not answer the statement's row`);
}
