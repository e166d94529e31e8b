// Who may do what: the one place that decides whether a caller's key allows a scope, for every door
// (the GraphQL resolvers through graphql/context.ts and graphql/execution/scope-rules.ts, the REST router before it
// runs a route, the cached-read door). Which scope each operation needs is graphql/execution/scope-rules.ts's
// table; which posts are public at all is content's rule (src/content/post-visibility.ts).
// - A public key (`pk_…`, embedded in websites) has `content:read` only.
// - A private key (`sk_…`) has the scopes it was made with (every scope unless narrowed).
import type { ApiKeyKind } from "./api-key-format.ts";
import type { Scope } from "./scopes.ts";

/** What a public key is told when it asks for more than published content (it can never have more). */
const PUBLIC_KEY_REFUSALS: Record<Exclude<Scope, "content:read">, string> = {
  "drafts:read":
    "Reading drafts, scheduled posts, revisions or previews needs a private API key; public keys only see published posts",
  "posts:write": "Writes need a private API key; this key is public and can only read",
  "taxonomy:write": "Writes need a private API key; this key is public and can only read",
  "media:write": "Writes need a private API key; this key is public and can only read",
  "fields:write": "Writes need a private API key; this key is public and can only read",
  "locales:write": "Writes need a private API key; this key is public and can only read",
  "webhooks:manage": "Webhook endpoints need a private API key; public keys are embedded in websites",
  "events:read": "The event log needs a private API key; this key is public",
  "keys:manage": "Managing API keys needs a private API key; this key is public",
  transfer: "Exports and imports need a private API key; this key is public",
};

/** Why a caller may not use `scope` (answered 403 with this message and the scope), or null when it may. */
export function scopeRefusal(
  caller: { keyKind: ApiKeyKind; scopes: ReadonlySet<Scope> },
  scope: Scope,
): string | null {
  if (caller.scopes.has(scope)) return null;
  if (caller.keyKind === "public" && scope !== "content:read") return PUBLIC_KEY_REFUSALS[scope];
  return `This API key does not have the ${scope} scope`;
}
