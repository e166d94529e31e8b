// One page of the change log for `events` (GraphQL) and GET /v1/events (REST runs the same field):
// the caller's workspace's events after a cursor, in position order, optionally of some types only.
// The log is read forward only: a consumer resumes from the last cursor it processed.
import { validateConnectionArguments } from "@pothos/core";
import { logHead } from "../content/changes/change-log.ts";
import { eventsConcerning } from "../content/changes/event-locales.ts";
import { retentionCutoff } from "../content/changes/event-retention.ts";
import { namedLocale } from "../content/locales/locales.ts";
import type { FieldProblem } from "../domain/errors.ts";
import { EVENT_TYPES, isEventType } from "../domain/event-types.ts";
import type { Event } from "../generated/prisma/client.ts";
import { absoluteMediaReferencesIn } from "../media/media-references.ts";
import type { GraphQLContext } from "./context.ts";
import { LATEST_CURSOR } from "./cursors/cursor-codec.ts";
import {
  decodeEventCursor,
  encodeEventCursor,
  eventLogScope,
  type LogPosition,
} from "./cursors/event-cursors.ts";
import { cursorExpiredError, userInputError } from "./errors.ts";
import { fitFeedData } from "./feed-answer-size.ts";
import { type Connection, MAX_PAGE_SIZE } from "./pagination.ts";

export const DEFAULT_EVENT_PAGE_SIZE = 50;

export interface EventLogArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  types?: readonly string[] | null;
  locale?: string | null;
}

export type EventConnection = Connection<Event>;

export async function eventConnection(ctx: GraphQLContext, args: EventLogArgs): Promise<EventConnection> {
  validateConnectionArguments(args);
  if (args.last != null || args.before != null) {
    throw userInputError("The change log is read forward: use `first` and `after`", [
      { field: args.last != null ? "last" : "before", message: "Not supported; use first and after" },
    ]);
  }
  const limit = Math.min(args.first ?? DEFAULT_EVENT_PAGE_SIZE, MAX_PAGE_SIZE);
  const types = checkedTypes(args.types);
  const workspaceId = ctx.caller.workspaceId;
  const scope = eventLogScope(workspaceId);
  // Checked before anything is read: another workspace's cursor, or one past retention, reads nothing.
  const after = args.after == null ? null : await startAfter(ctx, args.after, scope);
  const retentionDays = ctx.services.config.events.retentionDays;
  if (after && after.createdAt < retentionCutoff(retentionDays)) throw cursorExpiredError(retentionDays);

  const locale = args.locale == null ? null : await namedLocale(ctx.prisma, workspaceId, args.locale);
  const where = {
    workspaceId,
    ...(after ? { position: { gt: after.position } } : {}),
    ...(types ? { type: { in: types } } : {}),
    ...(locale ? eventsConcerning(locale.code, ctx.caller.audience !== "private") : {}),
  };
  const rows = await ctx.prisma.event.findMany({ where, orderBy: { position: "asc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  // Imported records are stored naming their files relative (media-references.ts): made absolute, as
  // the reads make them, before the page is fitted into an answer (feed-answer-size.ts).
  const urlFor = (key: string) => ctx.services.mediaStorage.urlFor(key);
  const data = fitFeedData(
    page.map((node) => absoluteMediaReferencesIn(node.data, urlFor) as Record<string, unknown> | null),
    ctx.services.config.graphql.maxResponseBytes,
  );
  const edges = page.map((node, index) => ({
    cursor: encodeEventCursor(scope, node),
    node: { ...node, data: data[index] as Event["data"] },
  }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      // An empty page read from `latest` or an event id still says where to resume: a cursor of the log.
      endCursor:
        edges.at(-1)?.cursor ?? (after && !isCursor(args.after) ? encodeEventCursor(scope, after) : null),
      hasPreviousPage: after !== null,
      hasNextPage: rows.length > limit,
    },
    totalCount: () => ctx.prisma.event.count({ where }),
  };
}

/**
 * Where a page starts: after a cursor of this log, after an event of the workspace named by its id (as
 * Stripe's `starting_after`), or at the head (`latest`: from now on).
 */
async function startAfter(ctx: GraphQLContext, after: string, scope: string): Promise<LogPosition> {
  const { workspaceId } = ctx.caller;
  if (after === LATEST_CURSOR)
    return { position: BigInt(await logHead(ctx.sql, workspaceId)), createdAt: new Date() };
  if (isCursor(after)) return decodeEventCursor(after, scope);
  const event = await ctx.prisma.event.findFirst({
    where: { id: after, workspaceId },
    select: { position: true, createdAt: true },
  });
  if (!event)
    throw userInputError("No event of this workspace's log has this id (it may be past the retention)", [
      { field: "after", message: "Not an event id of this workspace" },
    ]);
  return event;
}

/** Whether `after` is a cursor this log issued (not `latest` or an event id). */
function isCursor(after: string | null | undefined): boolean {
  return after != null && after !== LATEST_CURSOR && !after.startsWith("evt_");
}

/** The `types` filter: known event types only (null or empty: every type). */
function checkedTypes(types: readonly string[] | null | undefined): string[] | null {
  if (!types?.length) return null;
  const problems: FieldProblem[] = [];
  types.forEach((type, index) => {
    if (!isEventType(type))
      problems.push({ field: `types.${index}`, message: `Must be one of: ${EVENT_TYPES.join(", ")}` });
  });
  if (problems.length > 0) throw userInputError("Unknown event type", problems);
  return [...new Set(types)];
}
