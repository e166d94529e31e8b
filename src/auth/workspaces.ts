// Workspace and API-key administration, shared by the CLI, the admin HTTP API and first start. Writes
// go through the one writer (src/content/writer.ts) like every other change.

import { checkFirstLocaleCode, createFirstLocale, FIRST_LOCALE_CODE } from "../content/locales/locales.ts";
import { rescopePostSlugs } from "../content/posts/post-slugs.ts";
import { slugify } from "../content/slugs.ts";
import { type WriteClient, write } from "../content/writer.ts";
import { echoInput } from "../domain/echo-input.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { insertKey } from "./api-keys.ts";
import { EVERY_SCOPE, PUBLIC_KEY_SCOPES } from "./scopes.ts";

export interface WorkspaceSummary {
  id: string;
  name: string;
  slug: string;
}

export class WorkspaceNotFoundError extends Error {
  override name = "WorkspaceNotFoundError";
}

export interface NewWorkspaceOptions {
  /** The workspace's one locale, its default (BCP 47, canonicalised; default `en`). */
  locale?: string;
}

/**
 * Creates a workspace with one public and one private key and one locale, in one transaction. A
 * malformed `locale` is an InvalidInputError naming `locale`, before anything is written.
 */
export async function createWorkspace(
  prisma: PrismaClient,
  name: string,
  options: NewWorkspaceOptions = {},
): Promise<{
  workspace: WorkspaceSummary;
  publicKey: string;
  privateKey: string;
  locale: { code: string; name: string };
}> {
  const localeCode = checkFirstLocaleCode(options.locale ?? FIRST_LOCALE_CODE);
  return write(prisma, async (uow) => {
    const slug = await freeWorkspaceSlug(uow.tx, slugify(name));
    const workspace = await uow.tx.workspace.create({ data: { name, slug }, select: summarySelect });
    uow.changed({ resource: "workspace", action: "created", id: workspace.id, workspaceId: workspace.id });
    const locale = await createFirstLocale(uow.tx, workspace.id, localeCode);
    const first = { name: "", expiresAt: null, audited: false };
    const publicKey = await insertKey(uow, workspace.id, {
      kind: "public",
      scopes: [...PUBLIC_KEY_SCOPES],
      ...first,
    });
    const privateKey = await insertKey(uow, workspace.id, {
      kind: "private",
      scopes: [EVERY_SCOPE],
      ...first,
    });
    return { workspace, publicKey: publicKey.key, privateKey: privateKey.key, locale };
  });
}

/**
 * Whether post slugs must be unique across all of the workspace's locales (true) or only within each
 * (false): the database enforces it (content/posts/post-slugs.ts); turning it on while two locales share
 * a slug is a 409. A workspace setting: it records no event, as the workspace's other settings do not.
 */
export async function setSlugsUniqueAcrossLocales(
  prisma: PrismaClient,
  workspaceId: string,
  value: boolean,
): Promise<{ slugsUniqueAcrossLocales: boolean }> {
  return write(prisma, async (uow) => {
    const updated = await uow.tx.workspace.update({
      where: { id: workspaceId },
      data: { slugsUniqueAcrossLocales: value },
      select: { slugsUniqueAcrossLocales: true },
    });
    await rescopePostSlugs(uow.tx, workspaceId, value);
    uow.changed({ resource: "workspace", action: "updated", id: workspaceId, workspaceId });
    return updated;
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
