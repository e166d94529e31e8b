// What a cached answer depends on, and what a change log event changes: the one place that decides
// which writes invalidate which answers (README "What invalidates what"). An answer is served only if
// no key it depends on changed after the position it was computed at (src/cache/change-index.ts).
//
// The keys:
// - a record's id: the record itself changed (any event names its resource's id);
// - PUBLIC_CONTENT: something a public key can see may have changed — every event but a save of a
//   post that stays a draft (the status its event records; unpublishing adds post.unpublished, which
//   is public, and a delete records no status, so it counts as public);
// - ANY_CONTENT: anything changed (every event);
// - FIELD_DEFINITIONS: a custom field definition changed (a post's `fields` are keyed by them).
//
// The answers:
// - one post (GET /v1/posts/{identifier}): the ids in its body — the post, its category, tags and
//   authors, whose renames and deletes change it — and the field definitions. Nothing else in a post's
//   body comes from another record (its cover image is a URL, its counts none).
// - everything else (lists, counts, taxonomies, media, fields, every GraphQL answer): the whole
//   content its key kind can see — PUBLIC_CONTENT for public keys, ANY_CONTENT for private ones. A
//   list or a count depends on which posts exist, their order and their filters, which any public
//   post write can change.
// An answer whose ids could not all be collected (more than the tagging bound) falls back to the
// whole content of its key kind.

/** Reserved keys start with a character no record id has (ids are cuids: `c` and base-36). */
export const PUBLIC_CONTENT = "*public";
export const ANY_CONTENT = "*any";
export const FIELD_DEFINITIONS = "*fields";

/** The REST routes whose answers depend on the records they hold rather than on the whole content. */
const RECORD_ROUTES = new Set(["getPost"]);

export interface ChangeFacts {
  type: string;
  resourceId: string;
  /** A post's status as the event left it; null for other resources and for deletes. */
  postStatus: string | null;
}

/** The keys an event changes. */
export function keysChangedBy(change: ChangeFacts): string[] {
  const keys = [change.resourceId, ANY_CONTENT];
  if (!draftOnly(change)) keys.push(PUBLIC_CONTENT);
  if (change.type.startsWith("field.")) keys.push(FIELD_DEFINITIONS);
  return keys;
}

/** A post created or saved as a draft: no public key could see it before (else post.unpublished follows) or after. */
function draftOnly(change: ChangeFacts): boolean {
  return (change.type === "post.created" || change.type === "post.updated") && change.postStatus === "draft";
}

/** The whole content a key kind sees: what its collection answers depend on. */
export function contentOf(keyKind: string): string {
  return keyKind === "public" ? PUBLIC_CONTENT : ANY_CONTENT;
}

/** A REST answer's dependencies: its route, the caller's key kind, and the ids in its body (null: too many). */
export function restAnswerDependencies(
  routeName: string,
  keyKind: string,
  ids: readonly string[] | null,
): readonly string[] {
  if (RECORD_ROUTES.has(routeName) && ids !== null) return [...ids, FIELD_DEFINITIONS];
  return [contentOf(keyKind)];
}

/** A GraphQL answer's dependencies: a document may embed anything, so the whole content its key kind sees. */
export function graphqlAnswerDependencies(keyKind: string): readonly string[] {
  return [contentOf(keyKind)];
}
