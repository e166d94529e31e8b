// The one way cursors are written and read: a JSON array (a format version first, then what the
// cursor module puts in it) as base64url, checked on the way back by the module's zod schema. Checked,
// not signed: each module binds its cursors to a scope (a hash of what they were issued for) and a
// forged cursor only pages through the caller's own records. Anything that does not read back is the
// client's mistake, answered by the module with its own BAD_USER_INPUT.
import { createHash } from "node:crypto";
import type { z } from "zod";

/**
 * What a reader of the change log or the delta feed gives as its cursor to start at the head: nothing
 * before now, everything from now on (after a full sync, say).
 */
export const LATEST_CURSOR = "latest";

/** Longer than any cursor the service makes; anything longer is not even decoded. */
const DEFAULT_MAX_LENGTH = 256;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A short, stable hash of what a cursor is issued for (a workspace, a list's arguments, …). */
export function cursorScope(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22);
}

export function encodeCursor(payload: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

/** The payload a cursor holds if it is one `schema` accepts; null for anything else. */
export function decodeCursor<T>(
  cursor: string,
  schema: z.ZodType<T>,
  maxLength = DEFAULT_MAX_LENGTH,
): T | null {
  if (cursor.length > maxLength || !BASE64URL.test(cursor)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
