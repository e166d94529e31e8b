// Which keys of open subscriptions let nobody in any more, and when the next of the others stops: the
// rule of resolve-api-key.ts checkKnownKey, over the rows of many keys at once.

/** Which keys let nobody in any more and why, and when the soonest of the others stops (epoch ms; null: never). */
export interface KeyEnds {
  ended: Map<string, "API_KEY_REVOKED" | "API_KEY_EXPIRED">;
  nextEndAt: number | null;
}

interface KeyMoments {
  id: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  graceEndsAt: Date | null;
}

export function keyEndsAt(keyIds: readonly string[], rows: readonly KeyMoments[], now: number): KeyEnds {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const ended: KeyEnds["ended"] = new Map();
  let nextEndAt: number | null = null;
  for (const id of keyIds) {
    const row = byId.get(id);
    const graceEnd = row?.graceEndsAt?.getTime() ?? null;
    const expiry = row?.expiresAt?.getTime() ?? null;
    if (!row || row.revokedAt || (graceEnd !== null && graceEnd <= now)) ended.set(id, "API_KEY_REVOKED");
    else if (expiry !== null && expiry <= now) ended.set(id, "API_KEY_EXPIRED");
    else
      for (const moment of [graceEnd, expiry])
        if (moment !== null && (nextEndAt === null || moment < nextEndAt)) nextEndAt = moment;
  }
  return { ended, nextEndAt };
}
