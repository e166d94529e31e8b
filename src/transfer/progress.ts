// Long work shows progress: a bar on a terminal (cli-progress), one log line per batch otherwise (a
// pipe, a CI log, a file), both on stderr so stdout keeps the one JSON object the CLI prints.
import { SingleBar } from "cli-progress";

export interface ProgressReporter {
  /** After each batch (chunk): how many records are done, of how many when known. */
  update(kind: string, done: number, total: number | null): void;
  stop(): void;
}

export function progressReporter(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
): ProgressReporter {
  if (!stream.isTTY) {
    return {
      update: (kind, done, total) =>
        stream.write(`${label}: ${done}${total === null ? "" : `/${total}`} records (${kind})\n`),
      stop: () => {},
    };
  }
  const bar = new SingleBar({
    stream,
    format: `${label} [{bar}] {value}/{total} records ({kind})`,
    hideCursor: true,
  });
  let started = false;
  return {
    update(kind, done, total) {
      if (!started) {
        bar.start(total ?? done, 0, { kind });
        started = true;
      }
      if (total === null || done > total) bar.setTotal(done);
      bar.update(done, { kind });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
