// Workspace and API-key administration, shared by the CLI, the admin HTTP API and first start. Writes
// go through the one writer (src/content/writer.ts) like every other change.

import { slugify } from "../content/slugs.ts";
import { type UnitOfWork, type WriteClient, write } from "../content/writer.ts";
import { echoInput } from "../domain/echo-input.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type ApiKeyKind, displayHintOf, generateApiKey, hashApiKey } from "./api-key-format.ts";

export interface WorkspaceSummary {
  id: string;
  name: string;
  slug: string;
}

export interface ApiKeySummary {
  id: string;
  workspaceId: string;
  kind: ApiKeyKind;
  displayHint: string;
  createdAt: string;
  revokedAt: string | null;
}

export class WorkspaceNotFoundError extends Error {
  override name = "WorkspaceNotFoundError";
}

export class ApiKeyNotFoundError extends Error {
  override name = "ApiKeyNotFoundError";
}

/** Creates a workspace with one public and one private key, in one transaction. */
export async function createWorkspace(
  prisma: PrismaClient,
  name: string,
): Promise<{ workspace: WorkspaceSummary; publicKey: string; privateKey: string }> {
  return write(prisma, async (uow) => {
    const slug = await freeWorkspaceSlug(uow.tx, slugify(name));
    const workspace = await uow.tx.workspace.create({ data: { name, slug }, select: summarySelect });
    uow.changed({ resource: "workspace", action: "created", id: workspace.id, workspaceId: workspace.id });
    const publicKey = await insertKey(uow, workspace.id, "public");
    const privateKey = await insertKey(uow, workspace.id, "private");
    return { workspace, publicKey: publicKey.key, privateKey: privateKey.key };
  });
}

export async function listWorkspaces(prisma: PrismaClient): Promise<WorkspaceSummary[]> {
  return prisma.workspace.findMany({ select: summarySelect, orderBy: { createdAt: "asc" } });
}

/**
 * Finds a workspace by id, else by slug: a slug is made from a name, which may be another workspace's
 * id, and an exact id must never be taken for it (src/content/identifiers.ts says why). Both rows are
 * read in one statement (ids and slugs are each unique: at most two) and the exact id wins.
 */
export async function findWorkspace(prisma: PrismaClient, idOrSlug: string): Promise<WorkspaceSummary> {
  const matches = await prisma.workspace.findMany({
    where: { OR: [{ id: idOrSlug }, { slug: idOrSlug }] },
    select: summarySelect,
    take: 2,
  });
  const workspace = matches.find((match) => match.id === idOrSlug) ?? matches[0];
  if (!workspace) throw new WorkspaceNotFoundError(`No workspace with id or slug "${echoInput(idOrSlug)}"`);
  return workspace;
}

/** Whether a workspace has this id (the keyless `/v1/{workspace_id}/…` routes name it by id only). */
export async function workspaceExists(prisma: PrismaClient, id: string): Promise<boolean> {
  return (await prisma.workspace.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/** Creates a key; the returned `key` is the only time the secret is ever visible. */
export async function issueKey(
  prisma: PrismaClient,
  workspaceId: string,
  kind: ApiKeyKind,
): Promise<{ key: string; apiKey: ApiKeySummary }> {
  return write(prisma, (uow) => insertKey(uow, workspaceId, kind));
}

async function insertKey(
  uow: UnitOfWork,
  workspaceId: string,
  kind: ApiKeyKind,
): Promise<{ key: string; apiKey: ApiKeySummary }> {
  const key = generateApiKey(kind);
  const row = await uow.tx.apiKey.create({
    data: { workspaceId, kind, hash: hashApiKey(key), displayHint: displayHintOf(key) },
  });
  uow.changed({ resource: "api_key", action: "created", id: row.id, workspaceId });
  return { key, apiKey: toKeySummary(row) };
}

export async function listKeys(prisma: PrismaClient, workspaceId: string): Promise<ApiKeySummary[]> {
  const rows = await prisma.apiKey.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });
  return rows.map(toKeySummary);
}

/** Revokes a key (again revoking a revoked key changes nothing); every cache of it hears of it. */
export async function revokeKey(prisma: PrismaClient, keyId: string): Promise<ApiKeySummary> {
  return write(prisma, async (uow) => {
    // Only a key not yet revoked is updated, so two revocations at once both answer, once changed.
    const { count } = await uow.tx.apiKey.updateMany({
      where: { id: keyId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const row = await uow.tx.apiKey.findUnique({ where: { id: keyId } });
    if (!row) throw new ApiKeyNotFoundError(`No API key with id "${echoInput(keyId)}"`);
    if (count > 0)
      uow.changed({ resource: "api_key", action: "updated", id: row.id, workspaceId: row.workspaceId });
    return toKeySummary(row);
  });
}

const summarySelect = { id: true, name: true, slug: true } as const;

async function freeWorkspaceSlug(prisma: WriteClient, base: string): Promise<string> {
  const taken = new Set(
    (await prisma.workspace.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } })).map(
      (w) => w.slug,
    ),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

function toKeySummary(row: {
  id: string;
  workspaceId: string;
  kind: ApiKeyKind;
  displayHint: string;
  createdAt: Date;
  revokedAt: Date | null;
}): ApiKeySummary {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    kind: row.kind,
    displayHint: row.displayHint,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
