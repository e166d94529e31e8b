// Every write's response carries the primary's position past its commit in a Write-Position header (an
// LSN, `0/3001178`); a client that sends it back on a read is answered from a replica only if that
// replica has replayed it (src/graphql/replica-reads.ts, docs/read-replicas.md): read-your-writes on
// any instance. A write is a request that may change something (not GET, HEAD or OPTIONS); the writer
// has learnt the position before the write's resolver returns, so it is known when headers go out.
import type { RequestHandler } from "express";
import type { ReplicaRouter } from "../db/replica-router.ts";
import { formatLsn } from "../db/wal-position.ts";

export const WRITE_POSITION_RESPONSE_HEADER = "Write-Position";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function writePositionHeader(router: ReplicaRouter): RequestHandler {
  return (req, res, next) => {
    if (READ_METHODS.has(req.method)) return next();
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      const position = router.knownPosition();
      if (position !== null && !res.headersSent)
        res.setHeader(WRITE_POSITION_RESPONSE_HEADER, formatLsn(position));
      return writeHead.apply(this, args);
    } as typeof writeHead;
    next();
  };
}
