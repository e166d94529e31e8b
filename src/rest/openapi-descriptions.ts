// The prose of the OpenAPI document that the route table does not hold: what each tag groups, and an
// operation's description, said from the route's own facts (who may call it, the keyless form), so it
// can never drift from what the router enforces. Linters (Spectral's spectral:oas, Redocly) require both.
import { type RestRoute, routeScopes } from "./route.ts";

const TAG_DESCRIPTIONS: Record<string, string> = {
  Posts: "Articles: their content, status (draft, scheduled, published), relations, revisions and previews.",
  Categories: "The one category each post belongs to.",
  Tags: "Free labels a post carries, any number of them.",
  Authors: "People credited on posts.",
  Fields: "Custom fields: typed values every post of the workspace may carry.",
  Locales: "The languages of the workspace's content: codes, names, fallback chains, the default.",
  Media: "Uploaded images, video, audio and files, with their stored variants.",
  Events: "The change log: every content change, in order, with the resource as it was after it.",
  Changes: "The delta feed: what changed since a cursor, for keeping a copy of the content in sync.",
  Webhooks: "Endpoints that receive the change log's events, signed, and their deliveries.",
  Keys: "The workspace's API keys: scopes, expiry, rotation with a grace time, revocation, last use.",
};

/** The document's top-level `tags`: every tag an operation uses, in the order they first appear. */
export function declaredTags(routes: readonly RestRoute[]): { name: string; description: string }[] {
  const names = [...new Set(routes.map((route) => route.tag))];
  return names.map((name) => {
    const description = TAG_DESCRIPTIONS[name];
    // A route with a new tag must say what the tag is for: the document would declare it empty.
    if (!description) throw new Error(`OpenAPI tag "${name}" has no description (openapi-descriptions.ts)`);
    return { name, description };
  });
}

/** Who may call a route: the scopes of the one table (src/graphql/execution/scope-rules.ts), in words. */
function accessOf(route: RestRoute): string {
  const scopes = routeScopes(route);
  if (scopes.length === 1 && scopes[0] === "content:read")
    return "Any key of the workspace with content:read may call it (every public key); a key without drafts:read sees published content only.";
  return `It needs a private key of the workspace with the ${scopes.join(" and ")} scope${scopes.length > 1 ? "s" : ""}.`;
}

/** An operation's description: its summary, who may call it, and for the keyless form how it differs. */
export function operationDescription(route: RestRoute, workspaceForm: boolean): string {
  if (!workspaceForm) return `${route.summary}. ${accessOf(route)}`;
  return [
    `${route.summary}, addressed by the workspace's id instead of a key: a browser or a static site can read`,
    "the workspace's published content without one (read-only, at the unauthenticated rate limit). A key",
    "sent along must belong to that workspace. The keyed form of the same path is matched first, and a",
    "workspace id is never the name of a collection (posts, categories, tags, authors, fields, locales), so the two",
    "forms never answer the same URL.",
  ].join(" ");
}
