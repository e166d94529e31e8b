// The change log: the event rows a write appends at the writer's hook point, in its own transaction
// (writer.ts), so a rolled-back write leaves none and a committed one always has them. Nothing after
// COMMIT is ever the only record of a change.
//
// One change becomes one event, except that a post's status change adds a second one: a post created
// as published records post.created and post.published, an update that publishes or unpublishes it
// records post.updated and post.published or post.unpublished. Workspace, API key and webhook endpoint
// changes are not content and record nothing, except webhook.disabled: the service, not a client,
// disabled an endpoint, and the workspace hears of it as of any other event. All of an operation's events are inserted in one
// statement, which gives them consecutive positions in the order the operation named its changes.
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { statementName } from "../../db/statement-names.ts";
import type { EventType } from "../../domain/event-types.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Change } from "../change.ts";
import { newId } from "../ids.ts";
import { liveSql } from "../post-visibility.ts";
import { WEBHOOK_CHANNEL_PREFIX } from "../webhook-delivery-ids.ts";
import { EVENT_ID_SQL, eventIdTail, tickStartWithinMillisecond } from "./event-ids.ts";
import { eventLocalesOf } from "./event-locales.ts";
import { snapshotOf } from "./event-snapshots.ts";
import { type LoggedChange, type LoggedChangeRow, loggedChange } from "./log-tail.ts";

interface RevisionRow {
  id: string;
  postId: string;
  workspaceId: string;
  actorKeyId: string | null;
  actorName: string | null;
  /** How many of the post's revisions to keep, this one included. */
  keep: number;
  snapshot: Record<string, unknown>;
  /** The translation written (Change.locale); null: the default locale's. */
  locale: string | null;
}

interface EventRow {
  /** The row's place in the statement: its id's tick and its position follow it. */
  order: number;
  /** The id's last characters, after its tick (event-ids.ts). */
  tail: string;
  workspaceId: string;
  type: EventType;
  resourceId: string;
  slug: string | null;
  data: Record<string, unknown>;
  /** Change.keepsListings, on the post.updated row only. */
  keepsListings: boolean;
  /**
   * The locales a post event concerns, and those of them public (event-locales.ts: DEFAULT_LOCALE for the
   * workspace's default, and with withTranslations every translation of the post, both put in by
   * APPEND_SQL); none otherwise.
   */
  locales: string[];
  publicLocales: string[];
  withTranslations: boolean;
}

/**
 * An id of newId()'s shape for what is not in the log (a webhook.test delivery, a revision): the
 * log's own event ids are made under its append lock, sorted in log order (APPEND_SQL).
 */
export function newEventId(): string {
  return `evt_${newId().slice(1)}`;
}

/**
 * The events one append gave one workspace, as the response caches' change index reads them
 * (log-tail.ts), and the workspace's head before them: after COMMIT, the index of a process that is the
 * database's only writer can take them from here instead of reading them back (src/app/services.ts).
 */
export interface WorkspaceAppend {
  workspaceId: string;
  /**
   * The workspace's head in the append statement's snapshot. Exactly the head before these events only
   * where no other transaction can commit events between that snapshot and the append lock: a database
   * with one connection (the embedded and in-memory stores). On PostgreSQL another writer may have
   * committed while this statement waited for its turn, so it may be lower.
   */
  headBefore: number;
  events: LoggedChange[];
}

/** What an append did: how many webhook deliveries it calls for, and the events per workspace. */
export interface Appended {
  /** Webhook deliveries the events call for (a dispatcher makes them after COMMIT, webhook-fan-out.ts). */
  queued: number;
  workspaces: WorkspaceAppend[];
}

/** Appends the events of `changes`. */
export async function appendEvents(
  tx: Prisma.TransactionClient,
  changes: readonly Change[],
): Promise<Appended> {
  const rows: EventRow[] = [];
  const revisions: RevisionRow[] = [];
  for (const change of changes) {
    const types = eventTypesOf(change);
    if (types.length === 0) continue;
    const { locales, publicLocales, withTranslations } = await eventLocalesOf(tx, change);
    const snapshot = change.action === "deleted" ? null : await snapshotOf(tx, change);
    const data = snapshot ?? lastKnown(change);
    const slug = change.action === "deleted" ? (change.slug ?? null) : slugOf(change, data);
    // A post's revision is the same snapshot its event carries (post-revisions.ts).
    if (change.revision && snapshot)
      revisions.push({
        id: newEventId().replace(/^evt_/, "rev_"),
        postId: change.id,
        workspaceId: change.workspaceId,
        actorKeyId: change.revision.actor?.keyId ?? null,
        actorName: change.revision.actor?.name ?? null,
        keep: change.revision.keep,
        snapshot,
        locale: change.locale ?? null,
      });
    for (const type of types) {
      rows.push({
        order: rows.length,
        tail: eventIdTail(),
        workspaceId: change.workspaceId,
        type,
        resourceId: change.id,
        slug,
        data,
        keepsListings: type === "post.updated" && change.keepsListings === true,
        locales,
        publicLocales,
        withTranslations,
      });
    }
  }
  if (rows.length === 0) return { queued: 0, workspaces: [] };
  const [appended] = await tx.$queryRawUnsafe<{ queued: number; workspaces: AppendedRow[] | null }[]>(
    APPEND_SQL,
    APPEND_LOCK_ID,
    JSON.stringify(rows),
    JSON.stringify(revisions),
    rows.length,
    tickStartWithinMillisecond(),
  );
  return {
    queued: appended?.queued ?? 0,
    workspaces: (appended?.workspaces ?? []).map((row) => ({
      workspaceId: row.workspaceId,
      headBefore: Number(row.headBefore),
      events: row.events.map(loggedChange),
    })),
  };
}

/** APPEND_SQL's `workspaces`: the head as text, as the events' positions are. */
interface AppendedRow {
  workspaceId: string;
  headBefore: string;
  events: LoggedChangeRow[];
}

/** NOTIFY channel for "events were appended", followed by the schema's name. */
export const CHANGES_CHANNEL_PREFIX = "content_changes:";

/** Our own advisory lock id (Prisma's migrate lock is 72707369). */
const APPEND_LOCK_ID = 72707370;

// An event's locales and public locales (event-locales.ts) as the append writes them: the workspace's
// default locale put in for DEFAULT_LOCALE (''), and with withTranslations the post's translations
// after (by code; among the public ones those live now). Looked up here rather than by the writer, so a
// post's write costs no round trip for them. When the row needs the default and the workspace has
// none, the event names no locale.
const EVENT_LOCALES_SQL = (() => {
  const defaultCode = `(SELECT l.code FROM "Locale" l WHERE l."workspaceId" = e."workspaceId" AND l."isDefault")`;
  const translations = (condition: string) =>
    `CASE WHEN e."withTranslations" THEN ARRAY(SELECT t.locale FROM "PostTranslation" t
       WHERE t."postId" = e."resourceId"${condition} ORDER BY t.locale) ELSE '{}'::text[] END`;
  const needsDefault = `(e."withTranslations" OR '' = ANY(e.locales))`;
  const column = (list: string, condition: string) =>
    `CASE WHEN ${needsDefault} AND ${defaultCode} IS NULL THEN '{}'::text[]
     ELSE array_replace(${list}, '', ${defaultCode}) || ${translations(condition)} END`;
  return `${column("e.locales", "")}, ${column(
    'e."publicLocales"',
    ` AND ${liveSql("t", "(now() AT TIME ZONE 'UTC')")}`,
  )}`;
})();

// Positions in commit order. A BIGSERIAL is drawn at INSERT, not at COMMIT: with two writers, position
// 11 could commit before 10, and a reader resuming after 11 would never see 10. The transaction-scoped
// advisory lock, taken in the same statement before the positions are drawn and held until COMMIT or
// ROLLBACK, makes appends take turns, so every position a reader sees has all smaller ones committed
// (or rolled back) already. It is held only from this statement to the end of the transaction.
// The event ids are made in the same turn, in the same order as the positions (ORDER BY the rows'
// order, event-ids.ts): they sort as the log does, whichever process appended.
//
// The same statement stores the revisions of the posts the write changed (their snapshot, numbered
// after the post's last; a post's writes take turns under its row lock, posts.ts) and removes those
// past the retention of the translation written (the newest `keep` of each locale: a burst of French
// writes leaves the German history alone): no round trip of its own. The new revision is not yet
// visible to the other parts of the statement, so the older ones past the newest keep − 1 go. They are
// found per saved post through its ("postId", number) index (a post's revisions are at most keep per
// locale) and deleted by id: joined as one set instead, the planner scanned every post's revisions on
// each save (a hash join over the whole table, 1–2 ms at 2,000 rows and growing with it). The ORDER BY
// keeps the lateral subquery a subquery (PostgreSQL does not fold an ordered one into the join), so it
// runs once per saved post, on the index.
//
// The webhook deliveries are not made here but by a dispatcher, from the log, after COMMIT
// (webhook-fan-out.ts): this statement runs while every other writer waits for its turn, so it only
// counts the enabled endpoints that subscribe to the events (an index lookup) and, when there are any,
// sends a NOTIFY on the schema's channel (WEBHOOK_CHANNEL_PREFIX + schema), delivered to listening
// instances at COMMIT only, to wake their dispatchers. It always announces the append on
// CHANGES_CHANNEL_PREFIX + schema, for the instances' subscriptions. And it returns the appended events
// per workspace with the workspace's head in its snapshot (WorkspaceAppend: every sub-statement of a
// WITH shares one snapshot, so that head leaves out the rows `appended` inserts).
// Times are UTC, as Prisma stores them, whatever the session's time zone.
const APPEND_SQL = `WITH turn AS (SELECT pg_advisory_xact_lock($1)),
ticks AS MATERIALIZED (SELECT ${EVENT_ID_SQL.firstTick("$4", "$5")} AS first FROM turn),
appended AS (
  INSERT INTO "Event" (id, "workspaceId", type, "resourceId", slug, data, "keepsListings", locales, "publicLocales", "createdAt")
  SELECT ${EVENT_ID_SQL.id('ticks.first + e."order"', "e.tail")}, e."workspaceId", e.type, e."resourceId", e.slug, e.data, e."keepsListings", ${EVENT_LOCALES_SQL}, now() AT TIME ZONE 'UTC'
  FROM turn, ticks, jsonb_to_recordset($2::jsonb) AS e("order" int, tail text, "workspaceId" text, type text, "resourceId" text, slug text, data jsonb, "keepsListings" boolean, locales text[], "publicLocales" text[], "withTranslations" boolean)
  ORDER BY e."order"
  RETURNING position, "workspaceId", type, "resourceId", data->>'status' AS status, "keepsListings"
),
revised AS (
  INSERT INTO "PostRevision" (id, "postId", "workspaceId", number, "createdAt", "actorKeyId", "actorName", snapshot, locale)
  SELECT r.id, r."postId", r."workspaceId",
    COALESCE((SELECT max(x.number) FROM "PostRevision" x WHERE x."postId" = r."postId"), 0) + 1,
    now() AT TIME ZONE 'UTC', r."actorKeyId", r."actorName", r.snapshot, r.locale
  FROM turn, jsonb_to_recordset($3::jsonb) AS r(id text, "postId" text, "workspaceId" text, "actorKeyId" text, "actorName" text, keep int, snapshot jsonb, locale text)
  RETURNING "postId", locale
),
pruned AS (
  DELETE FROM "PostRevision" old
  WHERE old.id = ANY (ARRAY(
    SELECT x.id FROM revised n
    JOIN jsonb_to_recordset($3::jsonb) AS r("postId" text, keep int) ON r."postId" = n."postId"
    CROSS JOIN LATERAL (SELECT id FROM "PostRevision" x
      WHERE x."postId" = n."postId" AND x.locale IS NOT DISTINCT FROM n.locale
      ORDER BY x.number DESC OFFSET r.keep - 1) x))
),
subscribed AS (
  SELECT 1 FROM appended a
  JOIN "WebhookEndpoint" w ON w."workspaceId" = a."workspaceId" AND w.enabled
    AND (w.events @> ARRAY['*'] OR a.type = ANY (w.events))
)
SELECT (SELECT count(*) FROM subscribed)::int AS queued,
  (SELECT json_agg(w) FROM (
    SELECT a."workspaceId",
      (SELECT COALESCE(max(x.position), 0)::text FROM "Event" x WHERE x."workspaceId" = a."workspaceId") AS "headBefore",
      json_agg(json_build_object('position', a.position::text, 'type', a.type, 'resourceId', a."resourceId",
        'status', a.status, 'keepsListings', a."keepsListings") ORDER BY a.position) AS events
    FROM appended a GROUP BY a."workspaceId") w) AS workspaces,
  (SELECT count(*) FROM (SELECT pg_notify('${CHANGES_CHANNEL_PREFIX}' || current_schema(), '') FROM appended LIMIT 1) c)::int AS announced,
  (SELECT count(*) FROM (SELECT pg_notify('${WEBHOOK_CHANNEL_PREFIX}' || current_schema(), '') FROM subscribed LIMIT 1) n)::int AS notified`;

export function eventTypesOf(change: Change): EventType[] {
  // Only the service disables, and only webhook endpoints.
  if (change.action === "disabled") return change.resource === "webhook" ? ["webhook.disabled"] : [];
  switch (change.resource) {
    case "api_key":
      // A key's audit trail; other changes of a key (its first keys, made with the workspace) record none.
      return change.audit ? [`api_key.${change.audit}`] : [];
    case "workspace":
    case "webhook":
      return [];
    case "media":
      if (change.action === "released") return [];
      return [change.action === "created" ? "media.uploaded" : `media.${change.action}`];
    case "post":
      if (change.action === "released") return ["post.published"];
      return [`post.${change.action}`, ...statusEvent(change)];
    default:
      return change.action === "released" ? [] : [`${change.resource}.${change.action}`];
  }
}

function statusEvent(change: Change): EventType[] {
  const status = change.statusChange;
  if (change.action === "deleted" || !status || status.from === status.to) return [];
  if (status.to === "published") return ["post.published"];
  // A post created as a draft was never published: nothing to unpublish.
  return status.from === null ? [] : ["post.unpublished"];
}

/** What a delete leaves: the id and the last known slug (a field's key, a locale's code; media have none). */
function lastKnown(change: Change): Record<string, unknown> {
  if (change.resource === "field") return { id: change.id, key: change.slug ?? null };
  if (change.resource === "locale") return { id: change.id, code: change.slug ?? null };
  if (change.resource === "media") return { id: change.id };
  // A removed post translation: its post lives on, the event names the locale it lost.
  if (change.locale) return { id: change.id, slug: change.slug ?? null, locale: change.locale };
  return { id: change.id, slug: change.slug ?? null };
}

function slugOf(change: Change, data: Record<string, unknown>): string | null {
  const slug = change.resource === "field" ? data.key : change.resource === "locale" ? data.code : data.slug;
  return typeof slug === "string" ? slug : null;
}

/**
 * The head of a workspace's log (without one: of the whole log, as the live change stream follows it):
 * the position of its newest event ("0" before any), read with one indexed statement — the one place
 * the head is read. It moves with every committed content write, whichever process made it, which is
 * what the response cache keys its answers on (src/cache/rest-answers.ts).
 */
export async function logHead(sql: SqlExecutor, workspaceId?: string): Promise<string> {
  // Prepared once per connection: a cache hit makes no other statement, and parsing and planning it on
  // every read was most of its cost (bench, cached single post: PostgreSQL's CPU per hit 0.03 → 0.01–0.02 ms).
  const text = workspaceId === undefined ? WHOLE_LOG_HEAD_SQL : LOG_HEAD_SQL;
  const [row] = await sql.query<{ head: string }>(text, workspaceId === undefined ? [] : [workspaceId], {
    name: statementName(text),
  });
  return row?.head ?? "0";
}

/**
 * The head as an expression of a larger statement (`workspaceParam`: its placeholder of the workspace
 * id; without one, the whole log's), read in that statement's snapshot: what its other parts show is
 * the content at that head.
 */
export function logHeadExpression(workspaceParam?: string): string {
  const where = workspaceParam === undefined ? "" : ` WHERE "workspaceId" = ${workspaceParam}`;
  return `(SELECT COALESCE(max(position), 0)::text FROM "Event"${where})`;
}

const LOG_HEAD_SQL = `SELECT ${logHeadExpression("$1")} AS head`;
const WHOLE_LOG_HEAD_SQL = `SELECT ${logHeadExpression()} AS head`;
