// A small structured logger: one JSON line per event on stderr, so stdout stays free for CLI output.
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel = "info", write: (line: string) => void = defaultWrite): Logger {
  const at = (lvl: Exclude<LogLevel, "silent">) => (msg: string, data?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...data }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function defaultWrite(line: string): void {
  process.stderr.write(`${line}\n`);
}

export const silentLogger: Logger = createLogger("silent");
