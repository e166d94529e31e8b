// Turns the key a request presents into the caller's identity: which workspace, which kind, which
// scopes, and until when the key lets anyone in. Expiry and a rotation's grace are kept as moments, so
// a remembered key (caller-cache.ts) is refused the instant it ends without a database statement.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type ApiKeyKind, hashApiKey, hashesMatch, isWellFormedKey } from "./api-key-format.ts";
import {
  grantedScopes,
  PUBLIC_KEY_SCOPES,
  type ReadAudience,
  readAudienceOf,
  type Scope,
  scopeFingerprint,
} from "./scopes.ts";

export interface Caller {
  keyId: string;
  workspaceId: string;
  keyKind: ApiKeyKind;
  /** How the key is shown (its first characters), for records of who wrote what. */
  keyHint: string;
  scopes: ReadonlySet<Scope>;
  /** What the key's read answers depend on (drafts or not): caches keep answers per audience. */
  audience: ReadAudience;
  /** What the key may see, for cache keys (scopes.ts scopeFingerprint). */
  fingerprint: string;
}

/** A stored key as a lookup found it: who it makes the caller, and the moments it stops letting them in. */
export interface KnownKey {
  caller: Caller;
  /** Epoch ms after which the key is refused as expired; null: never. */
  expiresAt: number | null;
  /** Epoch ms after which a rotated-out key acts as revoked; null: not rotated out. */
  graceEndsAt: number | null;
}

/** What a presented key turned out to be, at a given moment. */
export type KeyCheck =
  | { state: "valid"; caller: Caller }
  | { state: "malformed" }
  | { state: "invalid" }
  | { state: "expired"; expiredAt: string };

/** Null: no such key, or revoked; "malformed": not a key this service could have issued (no lookup made). */
export async function lookUpApiKey(
  prisma: PrismaClient,
  presented: string,
): Promise<KnownKey | "malformed" | null> {
  if (!isWellFormedKey(presented)) return "malformed";
  const hash = hashApiKey(presented);
  const row = await prisma.apiKey.findUnique({
    where: { hash },
    select: {
      id: true,
      workspaceId: true,
      kind: true,
      hash: true,
      revokedAt: true,
      displayHint: true,
      scopes: true,
      expiresAt: true,
      graceEndsAt: true,
    },
  });
  if (!row || row.revokedAt || !hashesMatch(row.hash, hash)) return null;
  return {
    caller: callerOf(row),
    expiresAt: row.expiresAt?.getTime() ?? null,
    graceEndsAt: row.graceEndsAt?.getTime() ?? null,
  };
}

export function callerOf(row: {
  id: string;
  workspaceId: string;
  kind: ApiKeyKind;
  displayHint: string;
  scopes: readonly string[] | null;
}): Caller {
  // A public key never has more than published content, whatever its row says.
  const scopes = row.kind === "public" ? new Set(PUBLIC_KEY_SCOPES) : grantedScopes(row.scopes);
  return {
    keyId: row.id,
    workspaceId: row.workspaceId,
    keyKind: row.kind,
    keyHint: row.displayHint,
    scopes,
    audience: readAudienceOf(scopes),
    fingerprint: scopeFingerprint(readAudienceOf(scopes), scopes),
  };
}

/** Whether a known key lets its caller in at `now`. */
export function checkKnownKey(known: KnownKey | "malformed" | null, now: number): KeyCheck {
  if (known === "malformed") return { state: "malformed" };
  if (!known || (known.graceEndsAt !== null && known.graceEndsAt <= now)) return { state: "invalid" };
  if (known.expiresAt !== null && known.expiresAt <= now)
    return { state: "expired", expiredAt: new Date(known.expiresAt).toISOString() };
  return { state: "valid", caller: known.caller };
}

/** Resolves and checks a key in one step (tests and callers without a cache). */
export async function resolveApiKey(prisma: PrismaClient, presented: string): Promise<Caller | null> {
  const check = checkKnownKey(await lookUpApiKey(prisma, presented), Date.now());
  return check.state === "valid" ? check.caller : null;
}
