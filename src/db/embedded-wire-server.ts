// PostgreSQL's wire protocol in front of PGlite, on the embedded database's thread (embedded-database-thread.ts):
// what node-postgres talks to on the embedded store.
//
// Why not @electric-sql/pglite-socket: it hands PGlite one frontend message at a time, and PGlite answers
// an extended-protocol message that fails (a unique violation in Execute, a syntax error in Parse) with
// ErrorResponse *and* ReadyForQuery at once, then a second ReadyForQuery at the Sync (electric-sql/pglite
// issue 958, open). node-postgres takes the first as the end of the failed query and the second as the
// end of the next one, so every later answer belongs to the query before it: a key lookup read another
// statement's rows (a valid key answered 401), a write answered another request's 404, and the
// connection died on the first answer with no query left to take it ("unexpected rowDescription"). The
// new connection then met the old one's prepared statements in PGlite's single session (42P05 on every
// named statement, a 500 on every request until a restart). Issue 53.
//
// So here, PostgreSQL's own rules, kept by the server and not left to the client:
// - the frontend messages up to a Sync (or one simple Query) run in PGlite as one unit, and that unit
//   answers exactly one ReadyForQuery, its last: PostgreSQL skips an extended query's messages after an
//   error until the Sync and only then says it is ready (protocol-flow, "Extended Query");
// - one connection is served at a time (PGlite has one session), in the order they arrive;
// - when a connection ends, its session ends with it: an open transaction is rolled back and DISCARD ALL
//   drops its prepared statements, portals, settings and advisory locks, so the next connection starts
//   as a new PostgreSQL backend would, whatever the last one left.
import { existsSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/** The int32 codes of the frontend messages that come before the startup message (no type byte). */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const FLUSH = 0x48; // 'H'
const TERMINATE = 0x58; // 'X'
const READY_FOR_QUERY = 0x5a; // 'Z'

/** A frontend message's length is an int32; anything above this is a broken or hostile client. */
const MAX_MESSAGE_BYTES = 1 << 30;

export interface WireServer {
  close(): Promise<void>;
}

/**
 * Serves `db` on the Unix socket `path`. `onFatal` hears an error PGlite raised outside PostgreSQL's own
 * error handling (its WebAssembly state is then unknown): the thread should end and be started again.
 */
export async function serveWireProtocol(
  db: PGlite,
  path: string,
  onFatal: (error: unknown) => void,
): Promise<WireServer> {
  // A socket file left by a thread that was terminated: nobody listens on it any more.
  if (existsSync(path)) unlinkSync(path);
  let turn: Promise<void> = Promise.resolve();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    // Connections wait for the one before them to end: they share PGlite's one session.
    turn = turn.then(() => serveConnection(db, socket, onFatal)).finally(() => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    async close() {
      // The server's close waits for its connections to end: end them first (their sessions end too).
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await turn;
    },
  };
}

/** Serves one connection until it ends, then ends its session. */
function serveConnection(db: PGlite, socket: Socket, onFatal: (error: unknown) => void): Promise<void> {
  return new Promise<void>((done) => {
    if (socket.destroyed) {
      done();
      return;
    }
    let buffered: Buffer = Buffer.alloc(0);
    let started = false;
    let ended = false;
    let working: Promise<void> = Promise.resolve();

    const end = () => {
      if (ended) return;
      ended = true;
      socket.destroy();
      working
        .then(() => endSession(db))
        .catch(onFatal)
        .finally(done);
    };

    const work = async () => {
      while (!ended) {
        const unit = started ? nextUnit(buffered) : nextStartupMessage(buffered);
        if (!unit) return;
        buffered = buffered.subarray(unit.bytes);
        if (unit.kind === "refuse") {
          end();
          return;
        }
        if (unit.kind === "no-encryption") {
          socket.write("N");
          continue;
        }
        if (unit.kind === "terminate") {
          end();
          return;
        }
        if (unit.kind === "startup") started = true;
        const answer = await runFrontendMessages(db, unit.messages);
        if (!socket.destroyed)
          socket.write(unit.kind === "startup" ? answer : oneReadyForQuery(answer, unit));
      }
    };

    socket.on("data", (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      working = working.then(work).catch((error) => {
        onFatal(error);
        end();
      });
    });
    socket.on("error", end);
    socket.on("close", end);
  });
}

type Unit =
  | { kind: "startup"; messages: Buffer; bytes: number }
  | { kind: "no-encryption"; bytes: number }
  | { kind: "refuse"; bytes: number }
  | { kind: "terminate"; bytes: number }
  | { kind: "run"; messages: Buffer; bytes: number; terminator: number };

/** The first message(s) of a connection: SSL or GSS encryption requests (declined), then the startup. */
function nextStartupMessage(buffer: Buffer): Unit | undefined {
  if (buffer.length < 8) return undefined;
  const length = buffer.readInt32BE(0);
  if (length < 8 || length > MAX_MESSAGE_BYTES) return { kind: "refuse", bytes: buffer.length };
  if (buffer.length < length) return undefined;
  const code = buffer.readInt32BE(4);
  if (code === SSL_REQUEST || code === GSSENC_REQUEST) return { kind: "no-encryption", bytes: length };
  // A cancel request names a backend to interrupt; PGlite runs each statement to its end, on this thread.
  if (code === CANCEL_REQUEST || code !== PROTOCOL_3) return { kind: "refuse", bytes: length };
  return { kind: "startup", messages: buffer.subarray(0, length), bytes: length };
}

/**
 * The messages up to and including the next Sync, simple Query or Flush, once all of them have arrived;
 * a Terminate on its own.
 */
function nextUnit(buffer: Buffer): Unit | undefined {
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const type = buffer[offset] as number;
    const length = buffer.readInt32BE(offset + 1);
    if (length < 4 || length > MAX_MESSAGE_BYTES) return { kind: "refuse", bytes: buffer.length };
    if (buffer.length - offset < 1 + length) return undefined;
    if (type === TERMINATE && offset === 0) return { kind: "terminate", bytes: 1 + length };
    offset += 1 + length;
    if (type === SYNC || type === QUERY || type === FLUSH)
      return { kind: "run", messages: buffer.subarray(0, offset), bytes: offset, terminator: type };
  }
  return undefined;
}

/**
 * Runs frontend messages in PGlite and returns everything it answered: a unit's whole work on the
 * database's thread (exported for `npm run bench:stores`, which times it without the socket).
 */
export async function runFrontendMessages(db: PGlite, messages: Buffer): Promise<Buffer> {
  const answer: Uint8Array[] = [];
  await db.runExclusive(() =>
    db.execProtocolRawStream(new Uint8Array(messages), { onRawData: (data) => answer.push(data) }),
  );
  return Buffer.concat(answer);
}

/**
 * The answer with one ReadyForQuery, the last one PGlite sent, at its end (a Sync or a Query); none for a
 * Flush, which asks for what is ready without ending the extended query.
 */
function oneReadyForQuery(answer: Buffer, unit: Extract<Unit, { kind: "run" }>): Buffer {
  const kept: Buffer[] = [];
  let ready: Buffer | undefined;
  let offset = 0;
  while (offset + 5 <= answer.length) {
    const end = offset + 1 + answer.readInt32BE(offset + 1);
    const message = answer.subarray(offset, end);
    if (answer[offset] === READY_FOR_QUERY) ready = message;
    else kept.push(message);
    offset = end;
  }
  if (ready && unit.terminator !== FLUSH) kept.push(ready);
  return Buffer.concat(kept);
}

/** Ends the session of a connection that ended: no transaction, prepared statement or setting left. */
async function endSession(db: PGlite): Promise<void> {
  // Not inside runExclusive: exec takes PGlite's query lock itself. Nothing else runs meanwhile, since
  // the next connection is served only after this.
  if (db.isInTransaction()) await db.exec("ROLLBACK");
  await db.exec("DISCARD ALL");
}
