// Recognising an error that says the database could not be reached or dropped the connection, rather
// than refusing the statement: a server restarting, the embedded database's thread being started again
// (embedded-thread-supervisor.ts), a network fault. The request that meets one is answered 503 with Retry-After:
// it may well succeed a moment later, and nothing about it was the client's fault (nor a verdict on its
// key). Whichever way the error arrives: from node-postgres directly (raw SQL), or wrapped by Prisma.

/** Socket errors of connecting to, or talking with, a server that is not there. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ENOENT", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"]);

/**
 * SQLSTATEs of class 08 (connection exception) and the server going away (57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now); Prisma's own codes for the same (P1001 cannot reach,
 * P1002 timed out, P1017 server closed the connection).
 */
const UNREACHABLE_CODES = new Set(["57P01", "57P02", "57P03", "P1001", "P1002", "P1017"]);

/**
 * 08P01 protocol_violation is of class 08 but says the statement was sent wrong (a bind that gives a
 * statement more parameters than it names): a fault of ours, a 500, which no retry mends.
 */
const PROTOCOL_VIOLATION = "08P01";

/** Prisma's driver adapter's kinds for the same (@prisma/adapter-pg's convertDriverError). */
const UNREACHABLE_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

/** node-postgres's own messages, which carry no code. */
const UNREACHABLE_MESSAGE =
  /Connection terminated|Server has closed the connection|not queryable|timeout exceeded when trying to connect|Can't reach database server/;

export function isDatabaseUnreachable(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at && typeof at === "object" && depth < 6; depth++) {
    const candidate = at as {
      code?: unknown;
      kind?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: { cause?: unknown } };
      cause?: unknown;
    };
    if (typeof candidate.code === "string") {
      if (SOCKET_CODES.has(candidate.code) || UNREACHABLE_CODES.has(candidate.code)) return true;
      if (candidate.code.startsWith("08") && candidate.code !== PROTOCOL_VIOLATION) return true;
    }
    if (typeof candidate.kind === "string" && UNREACHABLE_KINDS.has(candidate.kind)) return true;
    if (typeof candidate.message === "string" && UNREACHABLE_MESSAGE.test(candidate.message)) return true;
    at = candidate.meta?.driverAdapterError?.cause ?? candidate.meta?.driverAdapterError ?? candidate.cause;
  }
  return false;
}
