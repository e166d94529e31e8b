// Cursors of the change feed (`changes`, GET /v1/changes): a position of the feed (a point of its
// snapshot or of the log) and the moment it was issued, bound to the workspace, the key kind and the
// types it was issued for (a public key's cursor skipped drafts a private key must see). Checked, not
// signed, like the other cursors: a forged one only reads the caller's own visible records. The moment
// decides expiry: a cursor older than the log's retention may have missed pruned events.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { FeedPosition } from "../content/change-feed.ts";
import { CursorMoment, LogPositionText } from "./cursor-values.ts";
import { userInputError } from "./errors.ts";

const MAX_CURSOR_LENGTH = 512;
const Payload = z.tuple([
  z.literal(1),
  z.string().min(1).max(64),
  z.enum(["s", "l"]),
  LogPositionText,
  z.number().int().min(0),
  z.string().max(64).nullable(),
  CursorMoment,
]);

export function changeFeedScope(workspaceId: string, keyKind: string, types: readonly string[]): string {
  return createHash("sha256")
    .update(JSON.stringify(["changes", workspaceId, keyKind, [...types].sort()]))
    .digest("base64url")
    .slice(0, 22);
}

export function encodeFeedCursor(scope: string, at: FeedPosition, issuedAt: Date): string {
  const payload =
    at.phase === "snapshot"
      ? [1, scope, "s", at.head.toString(), at.typeIndex, at.afterId, issuedAt.getTime()]
      : [1, scope, "l", at.position.toString(), 0, null, issuedAt.getTime()];
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

export function decodeFeedCursor(cursor: string, scope: string): { at: FeedPosition; issuedAt: Date } {
  const payload = cursor.length <= MAX_CURSOR_LENGTH ? parse(cursor) : null;
  if (!payload)
    throw userInputError("Invalid cursor: give back a nextCursor of the change feed, unchanged", [
      { field: "since", message: "Not a cursor of the change feed" },
    ]);
  const [, issuedFor, phase, position, typeIndex, afterId, issuedAt] = payload;
  if (issuedFor !== scope)
    throw userInputError(
      "This cursor was issued for another workspace, key kind or set of types; start again without `since`",
      [{ field: "since", message: "Issued for other reads" }],
    );
  const at: FeedPosition =
    phase === "s"
      ? { phase: "snapshot", head: BigInt(position), typeIndex, afterId }
      : { phase: "log", position: BigInt(position) };
  return { at, issuedAt: new Date(issuedAt) };
}

function parse(cursor: string): z.infer<typeof Payload> | null {
  try {
    const parsed = Payload.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
