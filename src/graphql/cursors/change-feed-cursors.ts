// Cursors of the change feed (`changes`, GET /v1/changes): a position of the feed (a point of its
// snapshot or of the log) and the moment it was issued, bound to the workspace, the key kind and the
// types it was issued for (a public key's cursor skipped drafts a private key must see). Checked, not
// signed, like the other cursors: a forged one only reads the caller's own visible records. The moment
// decides expiry: a cursor older than the log's retention may have missed pruned events.
//
// A point of the log is an event id of the workspace (change-feed.ts), never the log's global position:
// every number a cursor holds counts only this workspace's records, so a key learns nothing of other
// workspaces' writes by reading its cursors. Format 1 held global positions: still read (a client
// keeps its place across the upgrade), never issued.
import { z } from "zod";
import type { FeedPosition, GlobalPosition } from "../../content/changes/change-feed.ts";
import { userInputError } from "../errors.ts";
import { cursorScope, decodeCursor, encodeCursor } from "./cursor-codec.ts";
import { CursorMoment, LogPositionText, RecordIdText } from "./cursor-values.ts";

const FORMAT_VERSION = 2;
const MAX_CURSOR_LENGTH = 512;
/** An event id as the change log makes them (src/content/changes/change-log.ts newEventId). */
const EventIdText = z.string().regex(/^evt_[0-9a-z]{1,60}$/);
/** Records of one event's list served so far: far more than any list holds. */
const MAX_ITEMS = 1_000_000;

const Payload = z.union([
  // Listing what is visible now: the workspace's newest event when it began, the type reached, the last id.
  z.tuple([
    z.literal(FORMAT_VERSION),
    z.string().min(1).max(64),
    z.literal("s"),
    EventIdText.nullable(),
    z.number().int().min(0).max(3),
    RecordIdText.nullable(),
    CursorMoment,
  ]),
  // Following the log after an event ("l"), or inside one ("i": its list served up to a point).
  z.tuple([
    z.literal(FORMAT_VERSION),
    z.string().min(1).max(64),
    z.enum(["l", "i"]),
    EventIdText.nullable(),
    z.number().int().min(0).max(MAX_ITEMS),
    RecordIdText.nullable(),
    CursorMoment,
  ]),
]);

/** Format 1: the log's global position, listing ("s") or following the log ("l"). */
const FormatOne = z.tuple([
  z.literal(1),
  z.string().min(1).max(64),
  z.enum(["s", "l"]),
  LogPositionText,
  z.number().int().min(0).max(3),
  RecordIdText.nullable(),
  CursorMoment,
]);

/** `locale`: the one a feed names (its cursors are its own); null for the default's, as before locales. */
export function changeFeedScope(
  workspaceId: string,
  audience: string,
  types: readonly string[],
  locale: string | null = null,
): string {
  const scope: unknown[] = ["changes", workspaceId, audience, [...types].sort()];
  return cursorScope(locale === null ? scope : [...scope, locale]);
}

export function encodeFeedCursor(scope: string, at: FeedPosition, issuedAt: Date): string {
  const moment = issuedAt.getTime();
  const payload =
    at.phase === "snapshot"
      ? [FORMAT_VERSION, scope, "s", at.head, at.typeIndex, at.afterId, moment]
      : at.progress
        ? [FORMAT_VERSION, scope, "i", at.eventId, at.progress.items, at.progress.afterPostId, moment]
        : [FORMAT_VERSION, scope, "l", at.eventId, 0, null, moment];
  return encodeCursor(payload);
}

export function decodeFeedCursor(
  cursor: string,
  scope: string,
): { at: FeedPosition | GlobalPosition; issuedAt: Date } {
  const payload = decodeCursor(cursor, z.union([Payload, FormatOne]), MAX_CURSOR_LENGTH);
  // Inside an event needs the event.
  if (!payload || (payload[0] === FORMAT_VERSION && payload[2] === "i" && payload[3] === null))
    throw userInputError("Invalid cursor: give back a nextCursor of the change feed, unchanged", [
      { field: "since", message: "Not a cursor of the change feed" },
    ]);
  const [, issuedFor, phase, eventId, count, id, issuedAt] = payload;
  if (issuedFor !== scope)
    throw userInputError(
      "This cursor was issued for another workspace, key kind or set of types; start again without `since`",
      [{ field: "since", message: "Issued for other reads" }],
    );
  const at: FeedPosition | GlobalPosition =
    payload[0] === 1
      ? {
          phase: "position",
          position: BigInt(payload[3]),
          snapshot: phase === "s" ? { typeIndex: count, afterId: id } : null,
        }
      : phase === "s"
        ? { phase: "snapshot", head: eventId, typeIndex: count, afterId: id }
        : {
            phase: "log",
            eventId,
            progress: phase === "i" ? { items: count, afterPostId: id } : null,
          };
  return { at, issuedAt: new Date(issuedAt) };
}
