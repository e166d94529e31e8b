// A cached answer's time bound (issue 56, scheduled unpublishing): an answer showing a post whose
// `unpublishAt` has come is not served from then on, before the scheduler records its event, on any
// instance. The REST and GraphQL caches (rest-answers.ts, graphql-answers.ts) keep it the same way, and
// tell a CDN downstream as much (boundedCacheControl).

/** Ms since the epoch; null: no bound. */
export type AnswerExpiry = number | null;

/** Whether an answer with this bound may still be served now. */
export function beforeExpiry(expiresAt: AnswerExpiry | undefined): boolean {
  return expiresAt == null || Date.now() < expiresAt;
}

/** The earlier of a bound found so far and a post's `unpublishAt` (a Date or its ISO text). */
export function earlierExpiry(found: AnswerExpiry, unpublishAt: unknown): AnswerExpiry {
  if (unpublishAt == null) return found;
  const at = unpublishAt instanceof Date ? unpublishAt.getTime() : Date.parse(String(unpublishAt));
  return Number.isNaN(at) || (found !== null && found <= at) ? found : at;
}

/** The bound as a shared answer's header carries it: only when there is one. */
export function expiryHeader(expiresAt: AnswerExpiry | undefined): { expiresAt?: string } {
  return expiresAt == null ? {} : { expiresAt: String(expiresAt) };
}

/**
 * The bound read back from a shared answer's header: null when absent (an instance that knows no bound
 * stored it, or the answer had none), undefined when it cannot be read (the answer is not served).
 */
export function expiryFromHeader(value: unknown): AnswerExpiry | undefined {
  if (value === undefined || value === "") return null;
  if (typeof value !== "string") return undefined;
  const bound = Number(value);
  return Number.isSafeInteger(bound) ? bound : undefined;
}

/**
 * A Cache-Control that lets no shared cache (a CDN, CACHE_S_MAXAGE) keep an answer past its bound:
 * `s-maxage` at most the seconds left, and no `stale-while-revalidate` then (that would serve it stale
 * past the bound). Unchanged for an answer without a bound or a policy without `s-maxage`.
 */
export function boundedCacheControl(cacheControl: string, expiresAt: AnswerExpiry | undefined): string {
  if (expiresAt == null) return cacheControl;
  const granted = /s-maxage=(\d+)/.exec(cacheControl);
  if (!granted) return cacheControl;
  const left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
  if (left >= Number(granted[1])) return cacheControl;
  return cacheControl
    .split(", ")
    .filter((directive) => !directive.startsWith("stale-while-revalidate="))
    .map((directive) => (directive.startsWith("s-maxage=") ? `s-maxage=${left}` : directive))
    .join(", ");
}
