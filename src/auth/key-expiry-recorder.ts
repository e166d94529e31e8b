// Records `api_key.expired` in the change log when a key's expiry passes (issue 57), so private
// subscribers and webhooks hear of it like of a revocation. Nothing happens at the moment a key expires
// (requests are refused by the moment kept with each key), so a timer looks: it sleeps until the next
// expiry it knows of, never longer than `sweepMs` (keys made on other instances, or since). Exactly once
// across instances: a key is marked in the statement that records it, and a concurrent sweep that
// waited on the same row finds it marked and skips it.
import { write } from "../content/writer.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";

/** The longest a key's api_key.expired event may wait behind its expiry. */
export const KEY_EXPIRY_SWEEP_MS = 30_000;

/** Marks every key expired by `now` and not yet recorded, writing one event each; returns their ids. */
export async function recordExpiredKeys(prisma: PrismaClient, now = new Date()): Promise<string[]> {
  return write(prisma, async (uow) => {
    const expired = await uow.tx.apiKey.updateManyAndReturn({
      // A revoked key ended before it expired: its api_key.revoked says so already.
      where: { expiresAt: { lte: now }, expiryRecordedAt: null, revokedAt: null },
      data: { expiryRecordedAt: now },
      select: { id: true, workspaceId: true },
    });
    for (const key of expired)
      uow.changed({
        resource: "api_key",
        action: "updated",
        id: key.id,
        workspaceId: key.workspaceId,
        audit: "expired",
      });
    return expired.map((key) => key.id);
  });
}

export class KeyExpiryRecorder {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly options: {
      prisma: PrismaClient;
      sweepMs: number;
      onError: (message: string, error: unknown) => void;
    },
  ) {}

  start(): void {
    this.round();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private round(): void {
    if (this.stopped) return;
    this.running = this.sweep().then((delayMs) => {
      this.running = null;
      if (this.stopped) return;
      this.timer = setTimeout(() => this.round(), delayMs);
      this.timer.unref();
    });
  }

  /** One sweep; how long to sleep after it. */
  private async sweep(): Promise<number> {
    const { prisma, sweepMs } = this.options;
    try {
      await recordExpiredKeys(prisma);
      const next = await prisma.apiKey.findFirst({
        where: { expiresAt: { not: null }, expiryRecordedAt: null, revokedAt: null },
        orderBy: { expiresAt: "asc" },
        select: { expiresAt: true },
      });
      const untilNext = next?.expiresAt ? next.expiresAt.getTime() - Date.now() : sweepMs;
      return Math.max(0, Math.min(sweepMs, untilNext));
    } catch (error) {
      this.options.onError("recording expired API keys failed", error);
      return sweepMs;
    }
  }
}
