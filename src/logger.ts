// The service's structured logger: pino, one JSON line per event on stderr (stdout stays free for CLI
// output), or pino-pretty's readable lines for a developer (LOG_FORMAT=pretty). The project logs
// through this small interface — `logger.info(message, fields)` — so call sites stay the same whatever
// logs underneath; `pinoOf` hands the pino instance to the request log (src/http/request-log.ts).
//
// Credentials never reach a log line: Authorization and Cookie headers, API keys, secrets and tokens
// are redacted wherever they appear in the logged fields.
import { createRequire } from "node:module";
import pino, { type DestinationStream } from "pino";
import { stderrDestination } from "./log-destination.ts";

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
    destination(options),
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

export const silentLogger: Logger = createLogger("silent");
