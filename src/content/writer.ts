// The one writer. Every change to stored content — posts, categories, tags, authors, media, custom
// fields and their values, workspaces and API keys — happens inside `write()`: one transaction per
// operation, whose changes are named as they are made (`uow.changed(…)`). The GraphQL mutations (and so
// the REST routes), the CLI, the admin API and the seed command all call the service functions that
// use it; nothing else writes (test/architecture/one-writer.test.ts checks that every Prisma write in
// src/ goes through a unit of work's transaction client).
//
// The hook point is marked in `write()`: inside the transaction, after the operation's own statements
// and before COMMIT, with every change the operation named. The change log appends its event rows
// there, and a webhook delivery per subscribed endpoint (change-log.ts; so an event and its deliveries
// exist exactly when its change does); after COMMIT the in-process signal tells this instance's
// listeners (the API key cache, the webhook dispatcher; caches and subscriptions next).
import type { SqlExecutor } from "../db/sql-executor.ts";
import { statementName } from "../db/statement-names.ts";
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import type { Change } from "./change.ts";
import { appendEvents, type WorkspaceAppend } from "./changes/change-log.ts";

/** NOTIFY channel for "API keys changed", followed by the schema's name (src/auth/caller-cache.ts listens). */
export const API_KEYS_CHANNEL_PREFIX = "api_keys:";
const ANNOUNCE_KEYS_SQL = `SELECT pg_notify('${API_KEYS_CHANNEL_PREFIX}' || current_schema(), '')`;

/** The transaction client of a unit of work: the only client content writes go through. */
export type WriteClient = Prisma.TransactionClient;

/** What a lookup needs: the app's client, or a unit of work's (a lookup inside a write must use it). */
export type ReadClient = Prisma.TransactionClient;

/**
 * Waits for, then holds until the transaction ends, the workspace's turn at `what` (a transaction-level
 * advisory lock): writes whose rules look at all of a workspace's rows of one kind take turns.
 */
export async function takeWorkspaceTurn(
  tx: Pick<PrismaClient, "$executeRawUnsafe">,
  what: string,
  workspaceId: string,
): Promise<void> {
  await tx.$executeRawUnsafe("SELECT pg_advisory_xact_lock(hashtext($1))", `${what}:${workspaceId}`);
}

export type { Change, ChangedResource } from "./change.ts";
export type { WorkspaceAppend } from "./changes/change-log.ts";

export interface UnitOfWork {
  tx: WriteClient;
  /** Names a change this operation made; recorded with the transaction (see `write`). */
  changed(change: Change): void;
  /** Says the operation made webhook deliveries due (a retry, a replay, a test event). */
  queuedDeliveries(count: number): void;
}

/** What a committed write did besides its changes. */
export interface CommittedWrite {
  /** Webhook deliveries made due by the write: its events' fan-out, a retry, a replay. */
  deliveriesQueued: number;
  /** The events the write appended, per workspace (change-log.ts WorkspaceAppend: mind its `headBefore`). */
  appended: WorkspaceAppend[];
}

/** How a write treats what it records. */
export interface WriteOptions {
  /**
   * Runs at the hook point right after the write's events are appended, in its transaction, and returns
   * how many webhook deliveries the write still calls for: a bulk import's `--no-webhooks` withholds them
   * there (withheld-deliveries.ts), its events logged all the same.
   */
  afterAppend?: (tx: WriteClient, changes: readonly Change[], deliveriesQueued: number) => Promise<number>;
}

export type ChangeListener = (changes: readonly Change[], committed: CommittedWrite) => void;

/**
 * Listeners per database client: every writer on a client (requests, CLI, seed) passes through here,
 * so the signal belongs to the client, not to whoever happens to hold it.
 */
const listeners = new WeakMap<PrismaClient, Set<ChangeListener>>();

/**
 * Asked after every committed write on a client, before the write returns: the read-replica router
 * learns the primary's position past the commit, which the write's response carries back to the client
 * (src/db/replica-router.ts, src/http/write-position.ts). A failure to learn it fails nothing.
 */
const commitRecorders = new WeakMap<PrismaClient, () => Promise<void>>();

export function recordCommitPositions(prisma: PrismaClient, record: () => Promise<void>): void {
  commitRecorders.set(prisma, record);
}

/** Calls `listener` after every committed write on `prisma` that changed something. */
export function onCommittedChanges(prisma: PrismaClient, listener: ChangeListener): () => void {
  const set = listeners.get(prisma) ?? new Set<ChangeListener>();
  set.add(listener);
  listeners.set(prisma, set);
  return () => set.delete(listener);
}

/** Runs one write operation in its own transaction; see the file's comment. */
export async function write<T>(
  prisma: PrismaClient,
  work: (uow: UnitOfWork) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  const changes: Change[] = [];
  const committed: CommittedWrite = { deliveriesQueued: 0, appended: [] };
  const result = await prisma.$transaction(async (tx) => {
    const outcome = await work({
      tx,
      changed: (change) => changes.push(change),
      queuedDeliveries: (count) => {
        committed.deliveriesQueued += count;
      },
    });
    // The hook point: the change log's rows (and their webhook deliveries), in this transaction.
    const appended = await appendEvents(tx, changes);
    committed.deliveriesQueued += appended.queued;
    committed.appended = appended.workspaces;
    if (options.afterAppend)
      committed.deliveriesQueued = await options.afterAppend(tx, changes, committed.deliveriesQueued);
    // API keys record no event, but every instance caches the keys it has seen: tell them at COMMIT.
    if (changes.some((change) => change.resource === "api_key"))
      await tx.$executeRawUnsafe(ANNOUNCE_KEYS_SQL);
    return outcome;
  });
  if (changes.length > 0 || committed.deliveriesQueued > 0)
    for (const listener of listeners.get(prisma) ?? []) listener(changes, committed);
  await commitRecorders
    .get(prisma)?.()
    .catch(() => {});
  return result;
}

/**
 * One statement that is its own transaction, without BEGIN and COMMIT round trips: for bookkeeping
 * that changes no content and so names no change (the webhook dispatcher's claims, attempt records and
 * releases, several times a second under load). PostgreSQL runs a lone statement atomically; its rows
 * are as durable as a unit of work's. It goes straight to the driver (the raw SQL executor), not
 * through Prisma's query engine, whose per-row work on the claimed events' JSON was most of what a
 * delivery cost the service. Timestamps must leave such a statement as `timestamptz` (… AT TIME ZONE
 * 'UTC'): the drivers read a bare `timestamp` in the process's local time zone.
 */
export function writeStatement<T>(sql: SqlExecutor, text: string, ...params: unknown[]): Promise<T[]> {
  // Named: parsed and planned once per connection (src/db/statement-names.ts).
  return sql.query<T>(text, params, { name: statementName(text) });
}
