// Resolving a key costs a database round trip; a request burst with one key should not pay it every
// time. Entries live a few seconds, so a revoked key stops working everywhere within that time.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { type Caller, resolveApiKey } from "./resolve-api-key.ts";

export interface CallerResolver {
  resolve(presentedKey: string): Promise<Caller | null>;
  /** Forgets everything, e.g. after this instance revoked a key. */
  clear(): void;
}

export function createCallerResolver(
  prisma: PrismaClient,
  options: { ttlMs?: number; maxEntries?: number } = {},
): CallerResolver {
  // docs/operations.md ("Workspaces and API keys") promises that a revoked key stops working everywhere
  // within 5 s. An entry read just before the revocation lives this long after its lookup began, and the
  // request that still uses it needs its own time: a whole second of margin keeps the promise (5 s
  // exactly was seen at 5.07 s).
  const ttlMs = options.ttlMs ?? 4_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { caller: Caller | null; expiresAt: number }>();
  return {
    async resolve(presentedKey) {
      const now = Date.now();
      const cached = entries.get(presentedKey);
      if (cached && cached.expiresAt > now) return cached.caller;
      const caller = await resolveApiKey(prisma, presentedKey);
      if (entries.size >= maxEntries) entries.clear();
      entries.set(presentedKey, { caller, expiresAt: now + ttlMs });
      return caller;
    },
    clear() {
      entries.clear();
    },
  };
}
