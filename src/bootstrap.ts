// Opens everything the service needs from a Config: database, rate limiter, media storage. Shared by
// the server and the benchmark, so both run exactly the production wiring.
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./db/database.ts";
import type { QueryObserver } from "./db/sql-executor.ts";
import { createRateLimiter } from "./limits/create-rate-limiter.ts";
import type { RateLimiter } from "./limits/rate-limiter.ts";
import type { Logger } from "./logger.ts";
import { createMediaStorage } from "./media/create-storage.ts";
import type { MediaStorage } from "./media/storage.ts";

export interface Runtime {
  db: Database;
  rateLimiter: RateLimiter;
  mediaStorage: MediaStorage;
  close(): Promise<void>;
}

export async function openRuntime(
  config: Config,
  logger: Logger,
  options: { onQuery?: QueryObserver } = {},
): Promise<Runtime> {
  const db = await openDatabase(config.database, { migrate: true, logger, onQuery: options.onQuery });
  const rateLimiter = createRateLimiter({
    windowMs: config.rateLimit.windowMs,
    redisUrl: config.redisUrl,
    log: logger,
  });
  const mediaStorage = createMediaStorage(config);
  return {
    db,
    rateLimiter,
    mediaStorage,
    async close() {
      await rateLimiter.close();
      await db.close();
    },
  };
}
