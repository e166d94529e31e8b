// The cursors of postsConnection: the one place they are made and read back.
//
// A cursor carries a position in the list (the publishedAt and id of an edge's post, the two columns
// the list is ordered by) and the scope it was issued for: a hash of the caller's workspace and the
// list's arguments. It is checked, not signed: a cursor given back must have been issued for the
// caller's workspace and the same arguments, or it is refused before anything is read. The position
// is a pair of values, not a reference to a row, so a forged one reveals nothing: the page after it
// is still only the caller's own posts under the caller's own filters, and a cursor whose post was
// deleted (or moved out of the list) since continues right after where that post was.
import { z } from "zod";
import { userInputError } from "../errors.ts";
import type { PostListArgs } from "../read-model/post-list.ts";
import { cursorScope, decodeCursor, encodeCursor } from "./cursor-codec.ts";

/** Where an edge sits in a post list ordered by publishedAt, ties broken by id. */
export interface PostPosition {
  publishedAt: Date;
  id: string;
}

/** Bumped when the format changes, so older cursors are refused as invalid rather than misread. */
const FORMAT_VERSION = 1;
/** Longer than any cursor this module makes; anything longer is not read at all. */

/** Years 1 to 9999: every date the database can hold for a post, and nothing it would refuse. */
const EARLIEST = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

const CursorPayload = z.tuple([
  z.literal(FORMAT_VERSION),
  z.string().min(1).max(64),
  z.number().int().min(EARLIEST).max(LATEST),
  // PostgreSQL refuses NUL in text: such an id was never issued and must not reach the database.
  z
    .string()
    .min(1)
    .max(64)
    .refine((id) => !id.includes("\0")),
]);

/**
 * The scope of a post list: a hash of the workspace and of the arguments that choose and order its
 * posts, spelled the way the filters read them (lists as sets, a trimmed search, defaults applied),
 * so only a change in meaning changes it. The page size and the cursors themselves are not part of it.
 */
export function postListScope(workspaceId: string, args: PostListArgs): string {
  const asSet = (list: readonly string[] | null | undefined) =>
    list?.length ? [...new Set(list)].sort() : null;
  const query = args.query?.trim();
  const meaning = [
    workspaceId,
    asSet(args.categories),
    asSet(args.excludeCategories),
    asSet(args.tags),
    asSet(args.excludeTags),
    query ? query : null,
    args.featured ?? null,
    args.status ?? "published",
    args.order ?? "desc",
  ];
  return cursorScope(meaning);
}

export function encodePostCursor(scope: string, position: PostPosition): string {
  return encodeCursor([FORMAT_VERSION, scope, position.publishedAt.getTime(), position.id]);
}

/**
 * The position a cursor holds, if it was issued for `scope`. Anything else is the client's mistake
 * (BAD_USER_INPUT); the message never repeats the cursor, which may be anything of any size.
 */
export function decodePostCursor(cursor: string, scope: string): PostPosition {
  const payload = decodeCursor(cursor, CursorPayload);
  if (!payload) {
    throw userInputError("Invalid cursor: give back a cursor this connection returned, unchanged");
  }
  const [, issuedFor, publishedAt, id] = payload;
  if (issuedFor !== scope) {
    throw userInputError("This cursor was issued for another query; start again without `after`/`before`");
  }
  return { publishedAt: new Date(publishedAt), id };
}

// postsConnection with `locale` (issue 56): the list runs on the translation each post is served
// (content/posts/post-translation-list.ts), which pages by offset; its cursors hold the edge's offset in
// the list, checked against a scope that also names the locale and the fallback. Their own format, so
// a cursor of one kind given to the other is refused as invalid.
const LOCALIZED_FORMAT_VERSION = 2;
const LocalizedCursorPayload = z.tuple([
  z.literal(LOCALIZED_FORMAT_VERSION),
  z.string().min(1).max(64),
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
]);

/** The scope of a post list in a locale: postListScope's, with the locale and the fallback. */
export function localizedPostListScope(
  workspaceId: string,
  args: PostListArgs,
  locale: string,
  fallback: string | null | undefined,
): string {
  const chain =
    fallback == null
      ? null
      : fallback
          .split(",")
          .map((code) => code.trim())
          .filter(Boolean);
  return cursorScope([postListScope(workspaceId, args), locale, chain]);
}

export function encodeLocalizedPostCursor(scope: string, offset: number): string {
  return encodeCursor([LOCALIZED_FORMAT_VERSION, scope, offset]);
}

/** The offset a localized list's cursor holds, if it was issued for `scope` (else BAD_USER_INPUT). */
export function decodeLocalizedPostCursor(cursor: string, scope: string): number {
  const payload = decodeCursor(cursor, LocalizedCursorPayload);
  if (!payload) {
    throw userInputError("Invalid cursor: give back a cursor this connection returned, unchanged");
  }
  const [, issuedFor, offset] = payload;
  if (issuedFor !== scope) {
    throw userInputError("This cursor was issued for another query; start again without `after`/`before`");
  }
  return offset;
}
