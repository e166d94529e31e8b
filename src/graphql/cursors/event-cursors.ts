// The cursors of the change log (`events`, GraphQL and REST): the one place they are made and read.
//
// A cursor holds a position in the log and the moment of the event at that position, and is bound to
// the workspace it was issued for (a hash of its id): a cursor of another workspace is refused before
// anything is read. Like the post cursors (connection-cursors.ts) it is checked, not signed: a forged
// position only pages through the caller's own events. The moment decides expiry: a cursor older than
// the retention period may have had events after it deleted, so it answers CURSOR_EXPIRED (410) rather
// than silently skipping them.
import { z } from "zod";
import { userInputError } from "../errors.ts";
import { cursorScope, decodeCursor, encodeCursor } from "./cursor-codec.ts";
import { CursorMoment, LogPositionText } from "./cursor-values.ts";

export interface LogPosition {
  position: bigint;
  createdAt: Date;
}

const FORMAT_VERSION = 1;

const CursorPayload = z.tuple([
  z.literal(FORMAT_VERSION),
  z.string().min(1).max(64),
  LogPositionText,
  CursorMoment,
]);

export function eventLogScope(workspaceId: string): string {
  return cursorScope(["events", workspaceId]);
}

export function encodeEventCursor(scope: string, at: LogPosition): string {
  return encodeCursor([FORMAT_VERSION, scope, at.position.toString(), at.createdAt.getTime()]);
}

/** The position a cursor holds, if it was issued for `scope`; anything else is BAD_USER_INPUT. */
export function decodeEventCursor(cursor: string, scope: string): LogPosition {
  const payload = decodeCursor(cursor, CursorPayload);
  if (!payload) {
    throw userInputError("Invalid cursor: give back a cursor the change log returned, unchanged", [
      { field: "after", message: "Not a cursor of the change log" },
    ]);
  }
  const [, issuedFor, position, createdAt] = payload;
  if (issuedFor !== scope) {
    throw userInputError("This cursor was issued for another workspace; read the log without `after`", [
      { field: "after", message: "Issued for another workspace" },
    ]);
  }
  return { position: BigInt(position), createdAt: new Date(createdAt) };
}
