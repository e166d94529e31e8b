// Retention of the change log: events older than the retention period are deleted. Not a content
// change, so it names none and records no event; it still runs as a unit of work, as every Prisma
// write does (test/architecture/one-writer.test.ts).
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { Logger } from "../../logger.ts";
import { write } from "../writer.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The oldest moment an event may have and still be kept. */
export function retentionCutoff(retentionDays: number, now: Date = new Date()): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/** Deletes every event older than `retentionDays`; returns how many went. */
export async function pruneEvents(prisma: PrismaClient, retentionDays: number): Promise<number> {
  const cutoff = retentionCutoff(retentionDays);
  return write(prisma, async ({ tx }) => {
    const { count } = await tx.event.deleteMany({ where: { createdAt: { lt: cutoff } } });
    return count;
  });
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Prunes now and then every hour, in the background; the timer never keeps the process alive. Returns
 * the stop. With several instances each prunes: the deletes are idempotent and cheap by the age index.
 */
export function scheduleEventPruning(
  prisma: PrismaClient,
  retentionDays: number,
  logger: Logger,
): () => void {
  const run = () =>
    pruneEvents(prisma, retentionDays).then(
      (count) => {
        if (count > 0) logger.info("pruned change log events past retention", { count, retentionDays });
      },
      (error: unknown) =>
        logger.error("pruning the change log failed", {
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  void run();
  const timer = setInterval(run, HOUR_MS);
  timer.unref();
  return () => clearInterval(timer);
}
