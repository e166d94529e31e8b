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
// - PUBLIC_LISTINGS / ANY_LISTINGS: which posts a list holds, in what order, may have changed — as
//   PUBLIC_CONTENT / ANY_CONTENT, but not a post update that kept every list as it was (it set none of
//   status, publication date, featured, category, tags, and the post's visibility stayed: the event's
//   keepsListings);
// - FIELD_DEFINITIONS: a custom field definition changed (a post's `fields` are keyed by them);
// - WORKSPACE_LOCALES: a locale was added, changed or removed (a post read without `locale` tells its
//   locale and alternates only in a workspace of several: issue 56).
//
// The answers:
// - one post (GET /v1/posts/{identifier}): the ids in its body — the post, its category, tags and
//   authors, whose renames and deletes change it — the field definitions and the workspace's locales.
//   Nothing else in a post's body comes from another record (its cover image is a URL, its counts none;
//   its alternates are its own translations, whose writes name the post).
// - a post list without a search (GET /v1/posts, filtered or not): the ids in its body, the field
//   definitions, and the listings its key kind sees. An edit of a post the page does not show, which
//   keeps it where it was in every list, leaves the page as it was; any change of which posts the list
//   holds or their order (a post published, unpublished, created, deleted, re-dated, re-filed, retagged,
//   featured) changes the listings key.
// - a GraphQL answer: as a single post when its document asks for records by identifier and what they
//   hold (the ids it returned), as a list when it also lists posts without a search; which documents
//   are which: src/graphql/execution/answer-shape.ts.
// - everything else (searches — a title or body edit can change what matches —, counts, taxonomies,
//   media, fields, other GraphQL documents): the whole content its key kind can see — PUBLIC_CONTENT
//   for public keys, ANY_CONTENT for private ones.
// An answer whose ids could not all be collected (more than the tagging bound) falls back to the
// whole content of its key kind.

/** Reserved keys start with a character no record id has (ids are cuids: `c` and base-36). */
export const PUBLIC_CONTENT = "*public";
export const ANY_CONTENT = "*any";
export const FIELD_DEFINITIONS = "*fields";
export const WORKSPACE_LOCALES = "*locales";
export const PUBLIC_LISTINGS = "*public-listings";
export const ANY_LISTINGS = "*listings";

/** Beyond this many record ids an answer depends on the whole content of its key kind (REST and GraphQL). */
export const MAX_RECORD_DEPENDENCIES = 100;

/** What a GraphQL answer depends on beside the records it holds (src/graphql/execution/answer-shape.ts). */
export type AnswerShape = "records" | "listing" | "content";

/** The REST routes whose answers depend on the records they hold rather than on the whole content. */
const RECORD_ROUTES = new Set(["getPost"]);
/** The REST routes whose answers depend on the records they hold and on the listings (unless a search). */
const LISTING_ROUTES = new Set(["listPosts"]);

export interface ChangeFacts {
  type: string;
  resourceId: string;
  /** A post's status as the event left it; null for other resources and for deletes. */
  postStatus: string | null;
  /** A post update that left every post list as it was. */
  keepsListings: boolean;
}

/** The keys an event changes. */
export function keysChangedBy(change: ChangeFacts): string[] {
  const keys = [change.resourceId, ANY_CONTENT];
  const seenByPublicKeys = !draftOnly(change);
  if (seenByPublicKeys) keys.push(PUBLIC_CONTENT);
  if (!change.keepsListings) {
    keys.push(ANY_LISTINGS);
    if (seenByPublicKeys) keys.push(PUBLIC_LISTINGS);
  }
  if (change.type.startsWith("field.")) keys.push(FIELD_DEFINITIONS);
  if (change.type.startsWith("locale.")) keys.push(WORKSPACE_LOCALES);
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

/** The listings a key kind sees: what its post lists depend on beside the records they show. */
function listingsOf(keyKind: string): string {
  return keyKind === "public" ? PUBLIC_LISTINGS : ANY_LISTINGS;
}

/**
 * A REST answer's dependencies: its route, the caller's key kind, the ids in its body (null: too
 * many), whether it answers a search (`query`), and whether it was read in a locale (`locale`: it
 * depends on the post's translations and the locales' fallback chains, which no id in it stands for,
 * so on the whole content its key kind sees).
 */
export function restAnswerDependencies(
  routeName: string,
  keyKind: string,
  ids: readonly string[] | null,
  search = false,
  localized = false,
): readonly string[] {
  if (ids === null || localized) return [contentOf(keyKind)];
  if (RECORD_ROUTES.has(routeName)) return [...ids, FIELD_DEFINITIONS, WORKSPACE_LOCALES];
  if (LISTING_ROUTES.has(routeName) && !search)
    return [...ids, FIELD_DEFINITIONS, WORKSPACE_LOCALES, listingsOf(keyKind)];
  return [contentOf(keyKind)];
}

/**
 * A GraphQL answer's dependencies, by what its document asks for (src/graphql/execution/answer-shape.ts):
 * records only — the ids it returned and the field definitions, as REST's single post; records and
 * post lists without a search — those and the listings, as REST's lists; anything else — the whole
 * content its key kind sees. `ids` null: too many, or not collected.
 */
export function graphqlAnswerDependencies(
  keyKind: string,
  shape: AnswerShape,
  ids: readonly string[] | null,
): readonly string[] {
  if (shape === "content" || ids === null) return [contentOf(keyKind)];
  if (shape === "records") return [...ids, FIELD_DEFINITIONS, WORKSPACE_LOCALES];
  return [...ids, FIELD_DEFINITIONS, WORKSPACE_LOCALES, listingsOf(keyKind)];
}
