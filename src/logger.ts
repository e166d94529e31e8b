// The service's structured logger: pino, one JSON line per event on stderr (those of one turn of the
// event loop in one write, below; stdout stays free for CLI output), or pino-pretty's readable lines for
// a developer (LOG_FORMAT=pretty). The project logs
// through this small interface — `logger.info(message, fields)` — so call sites stay the same whatever
// logs underneath; `pinoOf` hands the pino instance to the request log (src/http/request-log.ts).
//
// Credentials never reach a log line: Authorization and Cookie headers, API keys, secrets and tokens
// are redacted wherever they appear in the logged fields.
import { createRequire } from "node:module";
import pino, { type DestinationStream } from "pino";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFormat = "json" | "pretty";

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

const SECRET_FIELDS = [
  "authorization",
  "cookie",
  "apiKey",
  "key",
  "privateKey",
  "publicKey",
  "secret",
  "token",
];

/** Every path where a credential may sit in logged fields: top level, one level down, and in headers. */
export const REDACTED_PATHS = SECRET_FIELDS.flatMap((field) => [
  field,
  `*.${field}`,
  `headers.${field}`,
  `*.headers.${field}`,
]);

const pinoByLogger = new WeakMap<Logger, pino.Logger>();

export function createLogger(
  level: LogLevel = "info",
  options: { format?: LogFormat; write?: (line: string) => void } = {},
): Logger {
  const base = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      // "level":"info" rather than 30: what log readers and the earlier lines carry.
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: "[Redacted]" },
    },
    // A silent logger writes nothing: no stderr stream, no exit hook for it.
    level === "silent" ? { write: () => {} } : destination(options),
  );
  const logger: Logger = {
    debug: (msg, data) => base.debug(data ?? {}, msg),
    info: (msg, data) => base.info(data ?? {}, msg),
    warn: (msg, data) => base.warn(data ?? {}, msg),
    error: (msg, data) => base.error(data ?? {}, msg),
  };
  pinoByLogger.set(logger, base);
  return logger;
}

/** The pino instance under a logger of this module (for the request log). */
export function pinoOf(logger: Logger): pino.Logger {
  return pinoByLogger.get(logger) ?? pino({ level: "silent" });
}

function destination(options: { format?: LogFormat; write?: (line: string) => void }): DestinationStream {
  if (options.write) {
    const write = options.write;
    return { write: (line: string) => write(line.endsWith("\n") ? line.slice(0, -1) : line) };
  }
  if (options.format === "pretty") {
    // A development dependency, loaded only when asked for: production installs may omit it.
    const pretty = createRequire(import.meta.url)("pino-pretty") as (options: object) => DestinationStream;
    return pretty({ destination: 2, colorize: process.stderr.isTTY, translateTime: "SYS:HH:MM:ss.l" });
  }
  return stderrDestination();
}

// The destination: stderr, the lines of one turn of the event loop in one write.
//
// Why not one write per line: a cache hit's request line cost about a third of the hit's CPU
// (`npm run bench:hits -- --profile`: 31 of 94 µs), most of it the synchronous write to the pipe a log
// collector reads, one system call per line. Under load the responses that one Redis or database reply
// completes end in the same turn, so their lines leave together, at the end of the turn (setImmediate):
// a line is out within the turn it was written in, in order, whole. An asynchronous destination (pino's
// `sync: false`) was measured too and gained nothing: its writes go through libuv's thread pool.
//
// On process.exit the lines not yet written leave synchronously (the "exit" event); a process killed
// outright (SIGKILL, a crash of Node itself) loses at most the lines of its last turn.

/** The synchronous write of a batch. */
export type WriteBatch = (text: string) => void;

export class TurnBatchedDestination implements DestinationStream {
  private pending = "";
  private scheduled = false;
  private readonly flushAtTurnEnd = () => this.flushSync();

  constructor(private readonly writeBatch: WriteBatch) {}

  write(line: string): void {
    this.pending += line;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flushAtTurnEnd);
  }

  /** Writes what is pending now (pino's logger.flush() calls it through `flush`). */
  flushSync(): void {
    this.scheduled = false;
    const text = this.pending;
    if (text === "") return;
    this.pending = "";
    this.writeBatch(text);
  }

  flush(done?: (error?: Error) => void): void {
    try {
      this.flushSync();
      done?.();
    } catch (error) {
      done?.(error as Error);
    }
  }
}

/** stderr, batched per turn, flushed on exit; the batches written by pino's synchronous destination. */
function stderrDestination(): TurnBatchedDestination {
  // sonic-boom writes synchronously and retries a full non-blocking pipe.
  const stderr = pino.destination({ fd: 2, sync: true });
  const destination = new TurnBatchedDestination((text) => stderr.write(text));
  process.on("exit", () => destination.flushSync());
  return destination;
}

export const silentLogger: Logger = createLogger("silent");
