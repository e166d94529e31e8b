// A streamed put announces its length up front (a local file is checked against it, S3 needs it as
// Content-Length): this passes `body` through and fails the stream when it ends shorter or runs longer,
// so a truncated or oversized body is never stored as if whole.
import { type Readable, Transform } from "node:stream";

export function exactLength(body: Readable, size: number, key: string): Readable {
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.byteLength;
      done(seen > size ? new RangeError(`${key}: more than the ${size} bytes announced`) : null, chunk);
    },
    flush(done) {
      done(seen === size ? null : new RangeError(`${key}: ${seen} bytes instead of the ${size} announced`));
    },
  });
  body.once("error", (error) => counted.destroy(error));
  // Whoever gives up on the counted stream (a failed write, an aborted request) gives up on the body too.
  counted.once("close", () => {
    if (!body.readableEnded) body.destroy();
  });
  return body.pipe(counted);
}
