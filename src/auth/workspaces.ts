// Workspace and API-key administration, shared by the CLI, the admin HTTP API and first start.

import { slugify } from "../content/slugs.ts";
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

export async function createWorkspace(
  prisma: PrismaClient,
  name: string,
): Promise<{ workspace: WorkspaceSummary; publicKey: string; privateKey: string }> {
  const slug = await freeWorkspaceSlug(prisma, slugify(name));
  const workspace = await prisma.workspace.create({ data: { name, slug }, select: summarySelect });
  const publicKey = await issueKey(prisma, workspace.id, "public");
  const privateKey = await issueKey(prisma, workspace.id, "private");
  return { workspace, publicKey: publicKey.key, privateKey: privateKey.key };
}

export async function listWorkspaces(prisma: PrismaClient): Promise<WorkspaceSummary[]> {
  return prisma.workspace.findMany({ select: summarySelect, orderBy: { createdAt: "asc" } });
}

/** Finds a workspace by id or slug. */
export async function findWorkspace(prisma: PrismaClient, idOrSlug: string): Promise<WorkspaceSummary> {
  const workspace = await prisma.workspace.findFirst({
    where: { OR: [{ id: idOrSlug }, { slug: idOrSlug }] },
    select: summarySelect,
  });
  if (!workspace) throw new WorkspaceNotFoundError(`No workspace with id or slug "${idOrSlug}"`);
  return workspace;
}

/** Creates a key; the returned `key` is the only time the secret is ever visible. */
export async function issueKey(
  prisma: PrismaClient,
  workspaceId: string,
  kind: ApiKeyKind,
): Promise<{ key: string; apiKey: ApiKeySummary }> {
  const key = generateApiKey(kind);
  const row = await prisma.apiKey.create({
    data: { workspaceId, kind, hash: hashApiKey(key), displayHint: displayHintOf(key) },
  });
  return { key, apiKey: toKeySummary(row) };
}

export async function listKeys(prisma: PrismaClient, workspaceId: string): Promise<ApiKeySummary[]> {
  const rows = await prisma.apiKey.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });
  return rows.map(toKeySummary);
}

export async function revokeKey(prisma: PrismaClient, keyId: string): Promise<ApiKeySummary> {
  const existing = await prisma.apiKey.findUnique({ where: { id: keyId } });
  if (!existing) throw new ApiKeyNotFoundError(`No API key with id "${keyId}"`);
  if (existing.revokedAt) return toKeySummary(existing);
  return toKeySummary(await prisma.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } }));
}

const summarySelect = { id: true, name: true, slug: true } as const;

async function freeWorkspaceSlug(prisma: PrismaClient, base: string): Promise<string> {
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
