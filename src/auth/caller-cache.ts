// Resolving a key costs a database round trip; a request burst with one key should not pay it every
// time. Entries live a few seconds, so a revoked key stops working everywhere within that time; expiry
// and a rotation's grace are moments kept in the entry, checked on every request (no statement).
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { KeyUseRecorder } from "./key-use-recorder.ts";
import {
  checkKnownKey,
  type KeyCheck,
  type KnownKey,
  lookUpApiKey,
  type RequestOrigin,
} from "./resolve-api-key.ts";

export interface CallerResolver {
  /**
   * What the key lets in now, from where the request comes (the client's address as the rate limiter
   * sees it, and the browser's Origin: a key's constraints); a use is noted with the address.
   */
  resolve(presentedKey: string, from?: RequestOrigin): Promise<KeyCheck>;
  /** Forgets everything, e.g. after this instance revoked a key. */
  clear(): void;
  /** Writes the uses noted so far and stops noting. */
  close(): Promise<void>;
}

export function createCallerResolver(
  prisma: PrismaClient,
  options: { ttlMs?: number; maxEntries?: number; now?: () => number; keyUses?: KeyUseRecorder } = {},
): CallerResolver {
  // docs/operations.md ("Workspaces and API keys") promises that a revoked key stops working everywhere
  // within 5 s. An entry read just before the revocation lives this long after its lookup began, and the
  // request that still uses it needs its own time: a whole second of margin keeps the promise (5 s
  // exactly was seen at 5.07 s).
  const ttlMs = options.ttlMs ?? 4_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { known: KnownKey | "malformed" | null; expiresAt: number }>();
  async function checked(presentedKey: string, from: RequestOrigin | undefined): Promise<KeyCheck> {
    const cached = entries.get(presentedKey);
    if (cached && cached.expiresAt > now()) return checkKnownKey(cached.known, now(), from);
    const lookedUpAt = now();
    const known = await lookUpApiKey(prisma, presentedKey);
    // A malformed string costs no lookup: nothing to remember (a flood of them must not evict keys).
    if (known !== "malformed") {
      if (entries.size >= maxEntries) entries.clear();
      entries.set(presentedKey, { known, expiresAt: lookedUpAt + ttlMs });
    }
    return checkKnownKey(known, now(), from);
  }
  return {
    async resolve(presentedKey, from) {
      const check = await checked(presentedKey, from);
      if (check.state === "valid" && from?.address !== undefined)
        options.keyUses?.noteUse(check.caller.keyId, from.address);
      return check;
    },
    clear() {
      entries.clear();
    },
    async close() {
      await options.keyUses?.stop();
    },
  };
}
