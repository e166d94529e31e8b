// Turns the key a request presents into the caller's identity: which workspace, which kind.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type ApiKeyKind, hashApiKey, hashesMatch, kindOfKey } from "./api-key-format.ts";

export interface Caller {
  keyId: string;
  workspaceId: string;
  keyKind: ApiKeyKind;
  /** How the key is shown (its first characters), for records of who wrote what. */
  keyHint: string;
}

export async function resolveApiKey(prisma: PrismaClient, presented: string): Promise<Caller | null> {
  // Anything without our prefix cannot be a key: answer without touching the database.
  if (!kindOfKey(presented) || presented.length > 200) return null;
  const hash = hashApiKey(presented);
  const row = await prisma.apiKey.findUnique({
    where: { hash },
    select: { id: true, workspaceId: true, kind: true, hash: true, revokedAt: true, displayHint: true },
  });
  if (!row || row.revokedAt || !hashesMatch(row.hash, hash)) return null;
  return { keyId: row.id, workspaceId: row.workspaceId, keyKind: row.kind, keyHint: row.displayHint };
}
