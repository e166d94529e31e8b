// Where the service's JSON log lines go: stderr, the lines of one turn of the event loop in one write.
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
import pino, { type DestinationStream } from "pino";

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
export function stderrDestination(): TurnBatchedDestination {
  // sonic-boom writes synchronously and retries a full non-blocking pipe.
  const stderr = pino.destination({ fd: 2, sync: true });
  const destination = new TurnBatchedDestination((text) => stderr.write(text));
  process.on("exit", () => destination.flushSync());
  return destination;
}
