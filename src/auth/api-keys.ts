// API key administration (issue 57), shared by the CLI, the admin HTTP API, `/v1/keys` and GraphQL:
// issuing with a name, scopes and an expiry; listing (never a secret); rotating with a grace time in
// which the old secret still works; revoking with a reason. Writes go through the one writer, so every
// instance's caches and open subscriptions hear of them (and the change log records api_key.* events
// for private readers and webhooks, never a secret).
import { type UnitOfWork, write } from "../content/writer.ts";
import { echoInput } from "../domain/echo-input.ts";
import { ForbiddenError, InvalidInputError, NotFoundError } from "../domain/errors.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type ApiKeyKind, displayHintOf, generateApiKey, hashApiKey } from "./api-key-format.ts";
import {
  addressRangesWithin,
  checkedAddressRanges,
  checkedLifetimeDays,
  checkedOrigins,
  expiryWithinLifetime,
} from "./key-constraints.ts";
import {
  ALL_SCOPES,
  EVERY_SCOPE,
  grantedScopes,
  isEveryScope,
  isScope,
  PUBLIC_KEY_SCOPES,
  type Scope,
  withImpliedScopes,
} from "./scopes.ts";

export interface ApiKeySummary {
  id: string;
  workspaceId: string;
  name: string;
  kind: ApiKeyKind;
  displayHint: string;
  scopes: Scope[];
  /** Public keys: the browser origins it answers (empty: any). */
  allowedOrigins: string[];
  /** Private keys: the client address ranges it answers (empty: any). */
  allowedAddresses: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
  revokedAt: string | null;
  revokedReason: string | null;
  /** For a key made by rotation: the key it replaced. */
  rotatedFromId: string | null;
  /** For a rotated-out key: until when it still works. */
  graceEndsAt: string | null;
}

/** A key id that names no key (of the workspace, when one is given): 404 on every door. */
export class ApiKeyNotFoundError extends NotFoundError {
  override name = "ApiKeyNotFoundError";

  constructor(keyId: string) {
    super("API key", keyId);
  }
}

/** What a new key is: its kind, and optionally a name, narrower scopes and an expiry. */
export interface KeyRequest {
  kind: ApiKeyKind;
  name?: string;
  /** Private keys only; absent: every scope (today's private key). */
  scopes?: readonly string[];
  expiresAt?: Date | null;
  /** Public keys only: browser origins (src/auth/key-constraints.ts). */
  allowedOrigins?: readonly string[];
  /** Private keys only: client address ranges. */
  allowedAddresses?: readonly string[];
}

/** The scopes of whoever asks (an API key with keys:manage); absent: the CLI or admin API, which may do anything. */
export interface KeyAuthority {
  scopes: ReadonlySet<Scope>;
  /** The maker's own address ranges: what it makes is bound within them. */
  allowedAddresses: readonly string[];
}

export const DEFAULT_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
const MAX_NAME_LENGTH = 100;

/** Creates a key; the returned `key` is the only time the secret is ever visible. */
export async function issueKey(
  prisma: PrismaClient,
  workspaceId: string,
  request: KeyRequest,
  authority?: KeyAuthority,
): Promise<{ key: string; apiKey: ApiKeySummary }> {
  const scopes = scopesFor(request, authority);
  const constraints = constraintsFor(request, authority);
  const asked = checkedExpiry(request.expiresAt ?? null);
  const name = checkedName(request.name ?? "");
  return write(prisma, async (uow) => {
    const expiresAt =
      request.kind === "private" ? expiryWithinLifetime(asked, await maxLifetimeOf(uow, workspaceId)) : asked;
    return insertKey(uow, workspaceId, { kind: request.kind, name, scopes, expiresAt, ...constraints });
  });
}

/** Sets (or, with null, lifts) the longest a workspace's new private keys may live; keys made before keep theirs. */
export async function setPrivateKeyMaxLifetime(
  prisma: PrismaClient,
  workspaceId: string,
  days: number | null,
): Promise<{ privateKeyMaxLifetimeDays: number | null }> {
  const privateKeyMaxLifetimeDays = checkedLifetimeDays(days);
  return write(prisma, async (uow) => {
    await uow.tx.workspace.update({ where: { id: workspaceId }, data: { privateKeyMaxLifetimeDays } });
    uow.changed({ resource: "workspace", action: "updated", id: workspaceId, workspaceId });
    return { privateKeyMaxLifetimeDays };
  });
}

async function maxLifetimeOf(uow: UnitOfWork, workspaceId: string): Promise<number | null> {
  const workspace = await uow.tx.workspace.findUnique({
    where: { id: workspaceId },
    select: { privateKeyMaxLifetimeDays: true },
  });
  return workspace?.privateKeyMaxLifetimeDays ?? null;
}

/** Origins are for public keys (browsers), address ranges for private ones (servers); never the other way. */
function constraintsFor(
  request: KeyRequest,
  authority: KeyAuthority | undefined,
): { allowedOrigins: string[]; allowedAddresses: string[] } {
  const origins = request.allowedOrigins ?? [];
  const addresses = request.allowedAddresses ?? [];
  if (request.kind === "public" && addresses.length > 0)
    throw new InvalidInputError("Address ranges bind private keys; a public key is bound by allowedOrigins", [
      { field: "allowedAddresses", message: "Private keys only" },
    ]);
  if (request.kind === "private" && origins.length > 0)
    throw new InvalidInputError(
      "Origins bind public keys (used in browsers); a private key is bound by allowedAddresses",
      [{ field: "allowedOrigins", message: "Public keys only" }],
    );
  const allowedAddresses = checkedAddressRanges(addresses);
  return {
    allowedOrigins: checkedOrigins(origins),
    allowedAddresses:
      authority && request.kind === "private"
        ? addressRangesWithin(authority.allowedAddresses, allowedAddresses)
        : allowedAddresses,
  };
}

export async function insertKey(
  uow: UnitOfWork,
  workspaceId: string,
  fields: {
    kind: ApiKeyKind;
    name: string;
    scopes: string[];
    expiresAt: Date | null;
    allowedOrigins?: string[];
    allowedAddresses?: string[];
    rotatedFromId?: string;
    /** false: no api_key.created event (a new workspace's first keys: its creation is not in the log). */
    audited?: boolean;
  },
): Promise<{ key: string; apiKey: ApiKeySummary }> {
  const key = generateApiKey(fields.kind);
  const row = await uow.tx.apiKey.create({
    data: {
      workspaceId,
      kind: fields.kind,
      name: fields.name,
      scopes: fields.scopes,
      expiresAt: fields.expiresAt,
      allowedOrigins: fields.allowedOrigins ?? [],
      allowedAddresses: fields.allowedAddresses ?? [],
      rotatedFromId: fields.rotatedFromId ?? null,
      hash: hashApiKey(key),
      displayHint: displayHintOf(key),
    },
  });
  uow.changed({
    resource: "api_key",
    action: "created",
    id: row.id,
    workspaceId,
    ...(fields.audited === false ? {} : { audit: "created" as const }),
  });
  return { key, apiKey: toKeySummary(row) };
}

export async function listKeys(prisma: PrismaClient, workspaceId: string): Promise<ApiKeySummary[]> {
  const rows = await prisma.apiKey.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });
  return rows.map(toKeySummary);
}

/**
 * Makes a new secret for a key: a new key with the same kind, name, scopes and expiry, while the old
 * one keeps working until `graceMs` from now (then acts as revoked). The caller may not rotate a key
 * wider than its own scopes: it would hold a secret that can do more than it can.
 */
export async function rotateKey(
  prisma: PrismaClient,
  keyId: string,
  options: { graceMs?: number; workspaceId?: string } = {},
  authority?: KeyAuthority,
): Promise<{ key: string; apiKey: ApiKeySummary; replaced: ApiKeySummary }> {
  const graceMs = options.graceMs ?? DEFAULT_ROTATION_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0 || graceMs > 30 * DAY_MS)
    throw new InvalidInputError("The grace time must be between 0 and 30 days", [
      { field: "graceSeconds", message: "Between 0 and 2592000 seconds" },
    ]);
  return write(prisma, async (uow) => {
    const old = await uow.tx.apiKey.findFirst({
      where: { id: keyId, ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}) },
    });
    if (!old) throw new ApiKeyNotFoundError(keyId);
    if (old.revokedAt)
      throw new InvalidInputError("A revoked key cannot be rotated", [{ field: "id", message: "Revoked" }]);
    if (old.graceEndsAt) throw rotatedAlready();
    if (authority) {
      assertWithin(authority, grantedScopesOfRow(old));
      assertRangesWithin(authority, old);
    }
    const graceEndsAt = new Date(Date.now() + graceMs);
    // Only a key not yet rotated is updated, so two rotations at once make one replacement.
    const { count } = await uow.tx.apiKey.updateMany({
      where: { id: old.id, graceEndsAt: null, revokedAt: null },
      data: { graceEndsAt },
    });
    if (count === 0) throw rotatedAlready();
    uow.changed({
      resource: "api_key",
      action: "updated",
      id: old.id,
      workspaceId: old.workspaceId,
      audit: "rotated",
    });
    const made = await insertKey(uow, old.workspaceId, {
      kind: old.kind,
      name: old.name,
      scopes: old.scopes ?? [],
      // A key made before the workspace set a maximum lifetime gets one when it is rotated.
      expiresAt:
        old.kind === "private"
          ? expiryWithinLifetime(old.expiresAt, await maxLifetimeOf(uow, old.workspaceId))
          : old.expiresAt,
      allowedOrigins: old.allowedOrigins ?? [],
      allowedAddresses: old.allowedAddresses ?? [],
      rotatedFromId: old.id,
    });
    return { ...made, replaced: toKeySummary({ ...old, graceEndsAt }) };
  });
}

/**
 * Revokes a key (again revoking a revoked key changes nothing). With `withRotation`, the key it was
 * rotated from or into is revoked too, ending a grace early.
 */
export async function revokeKey(
  prisma: PrismaClient,
  keyId: string,
  options: { reason?: string; withRotation?: boolean; workspaceId?: string } = {},
): Promise<ApiKeySummary> {
  const reason = options.reason ? checkedName(options.reason, "reason") : null;
  return write(prisma, async (uow) => {
    const row = await uow.tx.apiKey.findFirst({
      where: { id: keyId, ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}) },
    });
    if (!row) throw new ApiKeyNotFoundError(keyId);
    const ids = [row.id];
    if (options.withRotation) {
      const related = await uow.tx.apiKey.findMany({
        where: {
          workspaceId: row.workspaceId,
          OR: [{ rotatedFromId: row.id }, ...(row.rotatedFromId ? [{ id: row.rotatedFromId }] : [])],
        },
        select: { id: true },
      });
      ids.push(...related.map((key) => key.id));
    }
    for (const id of ids) {
      // Only a key not yet revoked is updated, so two revocations at once both answer, once changed.
      const { count } = await uow.tx.apiKey.updateMany({
        where: { id, revokedAt: null },
        data: { revokedAt: new Date(), revokedReason: reason },
      });
      if (count > 0)
        uow.changed({
          resource: "api_key",
          action: "updated",
          id,
          workspaceId: row.workspaceId,
          audit: "revoked",
        });
    }
    const after = await uow.tx.apiKey.findUniqueOrThrow({ where: { id: row.id } });
    return toKeySummary(after);
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

function scopesFor(request: KeyRequest, authority: KeyAuthority | undefined): string[] {
  if (request.kind === "public") {
    if (request.scopes?.some((scope) => scope !== "content:read"))
      throw new InvalidInputError("A public key reads published content only (content:read)", [
        { field: "scopes", message: "Public keys have content:read only; use a private key for more" },
      ]);
    return [...PUBLIC_KEY_SCOPES];
  }
  const asked = request.scopes ?? ALL_SCOPES;
  const unknown = asked.filter((scope) => !isScope(scope));
  if (unknown.length > 0)
    throw new InvalidInputError(
      `Unknown scope ${echoInput(unknown[0] ?? "")}; the scopes are ${ALL_SCOPES.join(", ")}`,
      [{ field: "scopes", message: `Unknown: ${unknown.map((s) => echoInput(s)).join(", ")}` }],
    );
  if (asked.length === 0)
    throw new InvalidInputError("A private key needs at least one scope", [
      { field: "scopes", message: "Empty" },
    ]);
  const scopes = withImpliedScopes(asked as Scope[]);
  if (authority) assertWithin(authority, scopes);
  return isEveryScope(scopes) ? [EVERY_SCOPE] : [...scopes].sort();
}

/** A key bound to address ranges may not hold the secret of a key usable from elsewhere. */
function assertRangesWithin(
  authority: KeyAuthority,
  key: { kind: ApiKeyKind; allowedAddresses: string[] | null },
): void {
  if (authority.allowedAddresses.length === 0 || key.kind === "public") return;
  const ranges = key.allowedAddresses ?? [];
  if (ranges.length === 0)
    throw new ForbiddenError("This API key cannot rotate a key usable from any address: its own are bound");
  addressRangesWithin(authority.allowedAddresses, ranges);
}

/** No key can make or hold a secret of a key that can do more than it can. */
function assertWithin(authority: KeyAuthority, scopes: ReadonlySet<Scope>): void {
  const beyond = [...scopes].find((scope) => !authority.scopes.has(scope));
  if (beyond)
    throw new ForbiddenError(
      `This API key cannot give a key the ${beyond} scope, which it does not have itself`,
      beyond,
    );
}

function grantedScopesOfRow(row: { kind: ApiKeyKind; scopes: string[] | null }): ReadonlySet<Scope> {
  return row.kind === "public" ? new Set(PUBLIC_KEY_SCOPES) : grantedScopes(row.scopes);
}

function checkedExpiry(expiresAt: Date | null): Date | null {
  if (expiresAt === null) return null;
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now())
    throw new InvalidInputError("A key's expiry must be in the future", [
      { field: "expiresAt", message: "In the past" },
    ]);
  return expiresAt;
}

function checkedName(name: string, field = "name"): string {
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_LENGTH)
    throw new InvalidInputError(`The ${field} is longer than ${MAX_NAME_LENGTH} characters`, [
      { field, message: `At most ${MAX_NAME_LENGTH} characters` },
    ]);
  return trimmed;
}

function toKeySummary(row: {
  id: string;
  workspaceId: string;
  name: string;
  kind: ApiKeyKind;
  displayHint: string;
  scopes: string[] | null;
  allowedOrigins: string[] | null;
  allowedAddresses: string[] | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedFrom: string | null;
  revokedAt: Date | null;
  revokedReason: string | null;
  rotatedFromId: string | null;
  graceEndsAt: Date | null;
}): ApiKeySummary {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    kind: row.kind,
    displayHint: row.displayHint,
    scopes: [...grantedScopesOfRow(row)],
    allowedOrigins: row.allowedOrigins ?? [],
    allowedAddresses: row.allowedAddresses ?? [],
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    lastUsedFrom: row.lastUsedFrom,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revokedReason: row.revokedReason,
    rotatedFromId: row.rotatedFromId,
    graceEndsAt: row.graceEndsAt?.toISOString() ?? null,
  };
}

/** A key rotated once is rotated no more: its replacement is. */
function rotatedAlready(): InvalidInputError {
  return new InvalidInputError("This key was rotated already; rotate its replacement", [
    { field: "id", message: "Already rotated" },
  ]);
}
