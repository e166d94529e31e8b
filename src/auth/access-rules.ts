// What each kind of API key may do: the one place that decides it, for both doors (the GraphQL
// resolvers through graphql/context.ts, the REST router before it runs a route). Which posts are public
// at all is content's rule (src/content/post-visibility.ts); these rules say who may see past it and
// who may change anything.
// - A public key (`pk_…`, embedded in websites) reads published content only.
// - A private key (`sk_…`) reads drafts, scheduled posts, revisions and previews, and writes.
import type { ApiKeyKind } from "./api-key-format.ts";

/** What a request asks to do, as far as its key's kind matters (a REST route's `access` other than "read"). */
export type Access = "read-drafts" | "write" | "private";

const REFUSALS: Record<Access, string> = {
  "read-drafts":
    "Reading drafts or scheduled posts needs a private API key; public keys only see published posts",
  write: "Writes need a private API key; this key is public and can only read",
  private: "This endpoint needs a private API key; this key is public",
};

/** Why a key of `kind` may not do `access` (answered 403 with this message), or null when it may. */
export function accessRefusal(kind: ApiKeyKind, access: Access): string | null {
  return kind === "private" ? null : REFUSALS[access];
}
