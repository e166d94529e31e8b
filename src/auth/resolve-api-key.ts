// Turns the key a request presents into the caller's identity: which workspace, which kind, which
// scopes, and until when the key lets anyone in. Expiry and a rotation's grace are kept as moments, so
// a remembered key (caller-cache.ts) is refused the instant it ends without a database statement.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type ApiKeyKind, hashApiKey, hashesMatch, isWellFormedKey } from "./api-key-format.ts";
import { addressAllowed, originAllowed } from "./key-constraints.ts";
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
  /** Public keys: the browser origins it answers (empty: any); key-constraints.ts. */
  allowedOrigins: readonly string[];
  /** Private keys: the client address ranges it answers (empty: any). */
  allowedAddresses: readonly string[];
}

/** Where a request comes from, for a key's constraints: the client address and the browser's Origin. */
export interface RequestOrigin {
  address?: string;
  origin?: string;
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
  | { state: "expired"; expiredAt: string }
  /** A valid key used from an origin or address it is not bound to: 403, saying which. */
  | { state: "refused"; message: string };

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
      allowedOrigins: true,
      allowedAddresses: true,
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
  allowedOrigins?: readonly string[] | null;
  allowedAddresses?: readonly string[] | null;
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
    allowedOrigins: row.allowedOrigins ?? [],
    allowedAddresses: row.allowedAddresses ?? [],
  };
}

/**
 * Whether a known key lets its caller in at `now`, from `from`. Constraints are checked only when
 * `from` is given: callers without an HTTP request (a subscription's later checks) were let in by one.
 */
export function checkKnownKey(
  known: KnownKey | "malformed" | null,
  now: number,
  from?: RequestOrigin,
): KeyCheck {
  if (known === "malformed") return { state: "malformed" };
  if (!known || (known.graceEndsAt !== null && known.graceEndsAt <= now)) return { state: "invalid" };
  if (known.expiresAt !== null && known.expiresAt <= now)
    return { state: "expired", expiredAt: new Date(known.expiresAt).toISOString() };
  const { caller } = known;
  if (from && !originAllowed(caller.allowedOrigins, from.origin))
    return {
      state: "refused",
      message: from.origin
        ? `This API key is not for pages on ${from.origin}: its owner bound it to ${caller.allowedOrigins.join(", ")}`
        : `This API key answers browsers on ${caller.allowedOrigins.join(", ")} only, and the request has no Origin`,
    };
  if (from && !addressAllowed(caller.allowedAddresses, from.address))
    return {
      state: "refused",
      message: `This API key is not for use from ${from.address ?? "an unknown address"}: its owner bound it to ${caller.allowedAddresses.join(", ")}`,
    };
  return { state: "valid", caller };
}

/** Resolves and checks a key in one step (tests and callers without a cache). */
export async function resolveApiKey(prisma: PrismaClient, presented: string): Promise<Caller | null> {
  const check = checkKnownKey(await lookUpApiKey(prisma, presented), Date.now());
  return check.state === "valid" ? check.caller : null;
}
