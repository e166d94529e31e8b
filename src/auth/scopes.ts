// What an API key may do: the scopes, described once (the README's table and the CLI's help are made
// from this), and the rules that join them. Which operation needs which scope is the GraphQL layer's
// table (src/graphql/execution/scope-rules.ts), since every door (REST routes included) runs a GraphQL operation.

export const SCOPES = {
  "content:read":
    "read published content (posts, categories, tags, authors, media, fields, locales, the public change feed)",
  "drafts:read": "read drafts, scheduled posts, revisions and previews (also reads the private change feed)",
  "posts:write": "create, edit, delete and restore posts",
  "taxonomy:write": "create, edit and delete categories, tags and authors",
  "media:write": "upload, edit and delete media",
  "fields:write": "define, edit and delete custom fields",
  "locales:write": "add, edit and remove the workspace's locales (fallback chains, the default)",
  "webhooks:manage": "webhook endpoints, their deliveries and replays",
  "events:read": "read the event log (/v1/events), which holds drafts too: includes drafts:read",
  "keys:manage": "list, create, rotate and revoke API keys (never wider than its own)",
  transfer:
    "export the workspace and import into it through the API (GET /v1/export, POST /v1/import); an export holds drafts: includes drafts:read",
} as const;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Stored for a key that has every scope, including any added later (keys made before scopes). */
export const EVERY_SCOPE = "*";

/** What a public key (`pk_…`, embedded in websites) may do; nothing else can be given to one. */
export const PUBLIC_KEY_SCOPES: readonly Scope[] = ["content:read"];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The scopes a stored list grants (`*`: all of them; names no longer known: nothing). */
export function grantedScopes(stored: readonly string[] | null): ReadonlySet<Scope> {
  if (!stored || stored.includes(EVERY_SCOPE)) return new Set(ALL_SCOPES);
  return withImpliedScopes(stored.filter(isScope));
}

/** Whether `scopes` is every scope there is (stored as `*`, so a scope added later is granted too). */
export function isEveryScope(scopes: ReadonlySet<Scope>): boolean {
  return ALL_SCOPES.every((scope) => scopes.has(scope));
}

/**
 * Reading drafts includes reading what is published: a key that sees a draft sees its published
 * neighbours in the same list. The event log holds every post as it was saved, drafts included, and an
 * export holds every post, so reading either includes reading drafts. Every other scope stands alone.
 */
export function withImpliedScopes(scopes: Iterable<Scope>): Set<Scope> {
  const all = new Set(scopes);
  if (all.has("events:read") || all.has("transfer")) all.add("drafts:read");
  if (all.has("drafts:read")) all.add("content:read");
  return all;
}

/** What a key's answers depend on: who sees drafts (and private fields such as an author's e-mail) or not. */
export type ReadAudience = "public" | "private";

export function readAudienceOf(scopes: ReadonlySet<Scope>): ReadAudience {
  return scopes.has("drafts:read") ? "private" : "public";
}

/**
 * What a key may see, as a cache key part: answers are kept per fingerprint, never per key, so that one
 * computed for a key is served only to keys that may see exactly as much (same audience, same scopes).
 */
export function scopeFingerprint(audience: ReadAudience, scopes: ReadonlySet<Scope>): string {
  return isEveryScope(scopes) ? `${audience}:*` : `${audience}:${[...scopes].sort().join(",")}`;
}
