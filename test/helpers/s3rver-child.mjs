// Runs s3rver alone in this process, so a test can freeze it (SIGSTOP) the way a hung object store
// freezes: the port keeps accepting connections, nothing answers. Prints "listening <port>" once ready.
// Usage: node s3rver-child.mjs <directory> <bucket>
import { createRequire } from "node:module";

const [directory, bucket] = process.argv.slice(2);
const S3rver = createRequire(import.meta.url)("s3rver");
const server = new S3rver({
  port: 0,
  address: "127.0.0.1",
  directory,
  silent: true,
  configureBuckets: [{ name: bucket }],
});
const address = await server.run();
process.stdout.write(`listening ${address.port}\n`);
// The parent's end of stdin closing means the parent is gone: never outlive it.
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
