// The cursors of the change log (`events`, GraphQL and REST): the one place they are made and read.
//
// A cursor holds a position in the log and the moment of the event at that position, and is bound to
// the workspace it was issued for (a hash of its id): a cursor of another workspace is refused before
// anything is read. Like the post cursors (connection-cursors.ts) it is checked, not signed: a forged
// position only pages through the caller's own events. The moment decides expiry: a cursor older than
// the retention period may have had events after it deleted, so it answers CURSOR_EXPIRED (410) rather
// than silently skipping them.
import { createHash } from "node:crypto";
import { z } from "zod";
import { CursorMoment, LogPositionText } from "./cursor-values.ts";
import { userInputError } from "./errors.ts";

export interface LogPosition {
  position: bigint;
  createdAt: Date;
}

const FORMAT_VERSION = 1;
const MAX_CURSOR_LENGTH = 256;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const CursorPayload = z.tuple([
  z.literal(FORMAT_VERSION),
  z.string().min(1).max(64),
  LogPositionText,
  CursorMoment,
]);

export function eventLogScope(workspaceId: string): string {
  return createHash("sha256")
    .update(JSON.stringify(["events", workspaceId]))
    .digest("base64url")
    .slice(0, 22);
}

export function encodeEventCursor(scope: string, at: LogPosition): string {
  const payload = [FORMAT_VERSION, scope, at.position.toString(), at.createdAt.getTime()];
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

/** The position a cursor holds, if it was issued for `scope`; anything else is BAD_USER_INPUT. */
export function decodeEventCursor(cursor: string, scope: string): LogPosition {
  const payload = cursor.length <= MAX_CURSOR_LENGTH && BASE64URL.test(cursor) ? parse(cursor) : null;
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

function parse(cursor: string): z.infer<typeof CursorPayload> | null {
  try {
    const parsed = CursorPayload.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
