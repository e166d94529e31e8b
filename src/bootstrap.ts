// Opens everything the service needs from a Config (database, rate limiter, media storage) and starts
// its background work (change log pruning, webhook dispatch). Shared by the server, the benchmark and
// the tests, so all run exactly the production wiring.
import { type CallerResolver, createCallerResolver } from "./auth/caller-cache.ts";
import { keyEndsAt } from "./auth/key-ends.ts";
import { KEY_EXPIRY_SWEEP_MS, KeyExpiryRecorder } from "./auth/key-expiry-recorder.ts";
import { createKeyUseRecorder } from "./auth/key-use-recorder.ts";
import { createRedisAnswers, type SharedAnswers } from "./cache/shared-answers.ts";
import type { Config } from "./config.ts";
import { CHANGES_CHANNEL_PREFIX, logHead } from "./content/changes/change-log.ts";
import { scheduleEventPruning } from "./content/changes/event-retention.ts";
import { createDeliveryStore } from "./content/deliveries/webhook-delivery-store.ts";
import { mayMoveSchedule, PUBLISH_SWEEP_MS, PublishScheduler } from "./content/posts/scheduler.ts";
import { WEBHOOK_CHANNEL_PREFIX } from "./content/webhook-delivery-ids.ts";
import { API_KEYS_CHANNEL_PREFIX, onCommittedChanges } from "./content/writer.ts";
import { type Database, openDatabase } from "./db/database.ts";
import { keepPlannerStatistics } from "./db/planner-statistics.ts";
import type { QueryObserver } from "./db/sql-executor.ts";
import { ChangeStream, type ChangeStreamLimits } from "./graphql/live/change-stream.ts";
import { createRateLimiter } from "./limits/create-rate-limiter.ts";
import type { RateLimiter } from "./limits/rate-limiter.ts";
import { createRedisClient } from "./limits/redis-client.ts";
import type { Logger } from "./logger.ts";
import { openMediaStorage } from "./media/create-storage.ts";
import type { MediaStorage } from "./media/storage.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { sendWebhook } from "./webhooks/sender.ts";

export interface Runtime {
  db: Database;
  rateLimiter: RateLimiter;
  mediaStorage: MediaStorage;
  /** The response caches' tier in Redis, with CACHE=redis. */
  sharedAnswers?: SharedAnswers;
  close(): Promise<void>;
}

export async function openRuntime(
  config: Config,
  logger: Logger,
  options: { onQuery?: QueryObserver } = {},
): Promise<Runtime> {
  const db = await openDatabase(config.database, {
    migrate: true,
    logger,
    onQuery: options.onQuery,
    replicas: config.replicas,
  });
  const rateLimiter = createRateLimiter({
    windowMs: config.rateLimit.windowMs,
    redisUrl: config.redisUrl,
    keyPrefix: config.rateLimit.redisPrefix,
    log: logger,
  });
  const mediaStorage = await openMediaStorage(config, logger);
  const sharedAnswers = openSharedAnswers(config);
  return {
    db,
    rateLimiter,
    mediaStorage,
    sharedAnswers,
    async close() {
      await sharedAnswers?.close();
      await rateLimiter.close();
      await db.close();
    },
  };
}

/** The response caches' tier in Redis when CACHE=redis (the caller closes it), else none. */
export function openSharedAnswers(config: Config): SharedAnswers | undefined {
  return config.cache.mode === "redis" && config.redisUrl
    ? createRedisAnswers(createRedisClient(config.redisUrl), config.cache.ttlMs)
    : undefined;
}

export interface BackgroundWork {
  /** Stops the timers; in-flight webhook attempts may finish until `deadlineMs`, then are released. */
  stop(deadlineMs: number): Promise<void>;
}

/**
 * What a service instance does besides answering requests: prune the change log (at start, then
 * hourly), release scheduled posts when due (startPublishScheduler) and, unless WEBHOOK_DISPATCH=false, send webhooks — woken by this instance's commits at
 * once and by other processes' through PostgreSQL's NOTIFY (src/webhooks/dispatcher.ts).
 */
export async function startBackgroundWork(
  config: Config,
  db: Database,
  logger: Logger,
  /** Where the webhooks' media URLs point: the instance's own storage, as its API's reads. */
  media: Pick<MediaStorage, "urlFor">,
): Promise<BackgroundWork> {
  const stopAnalysing = keepPlannerStatistics(db, config.analyzeIntervalMs, logger);
  const pruning = scheduleEventPruning(db.prisma, config.events.retentionDays, logger);
  const stopHousekeeping = async () => {
    pruning();
    await stopAnalysing();
  };
  const report = (message: string, error: unknown) =>
    logger.error(message, { error: error instanceof Error ? error.message : String(error) });
  const publishing = await startPublishScheduler(db, report);
  const keyExpiries = new KeyExpiryRecorder({
    prisma: db.prisma,
    sweepMs: KEY_EXPIRY_SWEEP_MS,
    onError: report,
  });
  keyExpiries.start();
  if (!config.webhooks.dispatch)
    return {
      async stop() {
        await stopHousekeeping();
        await keyExpiries.stop();
        await publishing.stop();
      },
    };
  const dispatcher = new WebhookDispatcher({
    store: createDeliveryStore(db.sql, db.prisma, (key) => media.urlFor(key)),
    send: sendWebhook,
    policy: { allowPrivate: config.webhooks.allowPrivateTargets },
    timeoutMs: config.webhooks.timeoutMs,
    disableAfterFailingMs: config.webhooks.disableAfterFailingMs,
    endpointConcurrency: config.webhooks.endpointConcurrency,
    workspaceConcurrency: config.webhooks.workspaceConcurrency,
    ...(config.webhooks.retryScheduleMs ? { retryScheduleMs: config.webhooks.retryScheduleMs } : {}),
    onError: report,
  });
  const stopListening = onCommittedChanges(db.prisma, (_changes, committed) => {
    if (committed.deliveriesQueued > 0) dispatcher.wake();
  });
  const listening = await db.listen(
    WEBHOOK_CHANNEL_PREFIX,
    () => dispatcher.wake(),
    (error) => report("listening for webhook notifications failed; reconnecting", error),
  );
  // Deliveries left from before this start (a crash, a restart) go out now.
  dispatcher.wake();
  return {
    async stop(deadlineMs) {
      await stopHousekeeping();
      await keyExpiries.stop();
      await publishing.stop();
      stopListening();
      await listening.close();
      await dispatcher.stop(deadlineMs);
    },
  };
}

/**
 * The publishing scheduler (src/content/posts/scheduler.ts): a round at once (a restart after a due time
 * publishes on start-up), then woken to re-arm its timer by this process's post writes that may move
 * the schedule (mayMoveSchedule: not a draft save) and, through the change NOTIFY, by every other
 * process's writes.
 */
async function startPublishScheduler(
  db: Database,
  report: (message: string, error: unknown) => void,
): Promise<{ stop(): Promise<void> }> {
  const scheduler = new PublishScheduler({ prisma: db.prisma, sweepMs: PUBLISH_SWEEP_MS, onError: report });
  const stopListening = onCommittedChanges(db.prisma, (changes) => {
    if (changes.some(mayMoveSchedule)) scheduler.wake();
  });
  const listening = await db.listen(
    CHANGES_CHANNEL_PREFIX,
    () => scheduler.wake(),
    (error) => report("listening for change notifications failed; reconnecting", error),
  );
  scheduler.start();
  return {
    async stop() {
      stopListening();
      await listening.close();
      await scheduler.stop();
    },
  };
}

/**
 * The instance's live change stream for GraphQL subscriptions: woken by this process's commits at once
 * and by other processes' through NOTIFY; reads the change log only while someone subscribes.
 */
export function createChangeStream(
  db: Database,
  logger: Logger,
  limits: Partial<ChangeStreamLimits>,
): ChangeStream {
  const report = (message: string, error: unknown) =>
    logger.error(message, { error: error instanceof Error ? error.message : String(error) });
  const stream = new ChangeStream(
    {
      head: async () => BigInt(await logHead(db.sql)),
      after: (position, limit) =>
        db.prisma.event.findMany({
          where: { position: { gt: position } },
          orderBy: { position: "asc" },
          take: limit,
        }),
      listen: async (onNotify) => {
        const listening = await db.listen(CHANGES_CHANNEL_PREFIX, onNotify, (error) =>
          report("listening for change notifications failed; reconnecting", error),
        );
        return () => listening.close();
      },
      listenForKeyChanges: async (onChange) => {
        const listening = await db.listen(API_KEYS_CHANNEL_PREFIX, onChange, (error) =>
          report("listening for API key changes (subscriptions) failed; reconnecting", error),
        );
        return () => listening.close();
      },
      keyEnds: async (keyIds) => {
        const rows = await db.prisma.apiKey.findMany({
          where: { id: { in: [...keyIds] } },
          select: { id: true, revokedAt: true, expiresAt: true, graceEndsAt: true },
        });
        return keyEndsAt(keyIds, rows, Date.now());
      },
    },
    limits,
    report,
  );
  onCommittedChanges(db.prisma, (changes) => {
    if (changes.length > 0) stream.wake();
    if (changes.some((change) => change.resource === "api_key")) stream.keysChanged();
  });
  return stream;
}

export interface SharedCallers {
  callers: CallerResolver;
  close(): Promise<void>;
}

/**
 * The API key cache of an instance, cleared at once when any process changes a key: this one's writes
 * clear it through the writer's signal (app/services.ts), other processes' through the NOTIFY their writes send.
 * A revoked key is refused by every instance as soon as the revocation commits; the cache's short
 * lifetime remains the net for a missed notification.
 */
export async function createSharedCallers(db: Database, logger: Logger): Promise<SharedCallers> {
  const callers = createCallerResolver(db.prisma, {
    keyUses: createKeyUseRecorder(db.sql, {
      onError: (error) =>
        logger.warn("recording when API keys were last used failed; retrying with the next uses", {
          error: error instanceof Error ? error.message : String(error),
        }),
    }),
  });
  const listening = await db.listen(
    API_KEYS_CHANNEL_PREFIX,
    () => callers.clear(),
    (error) =>
      logger.error("listening for API key changes failed; reconnecting", {
        error: error instanceof Error ? error.message : String(error),
      }),
  );
  return {
    callers,
    close: async () => {
      await listening.close();
      await callers.close();
    },
  };
}
