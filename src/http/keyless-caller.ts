// The caller of a request that presents no key where none is needed: the read-only
// `/v1/{workspace_id}/…` routes and keyless introspection. It reads what a public key reads.

import { PUBLIC_KEY_SCOPES, scopeFingerprint } from "../auth/scopes.ts";
import type { RequestCaller } from "../graphql/context.ts";

export function keylessCaller(workspaceId: string): RequestCaller {
  const scopes = new Set(PUBLIC_KEY_SCOPES);
  return {
    keyId: null,
    workspaceId,
    keyKind: "public",
    scopes,
    audience: "public",
    fingerprint: scopeFingerprint("public", scopes),
    allowedAddresses: [],
    allowedOrigins: [],
  };
}
