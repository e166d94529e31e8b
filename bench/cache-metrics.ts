// The response cache's hits and misses as the service's /metrics counts them, around a measured run:
// `npm run bench` and `npm run bench:writers` report each route's hit ratio from two readings.

/** The bearer token the benches start the service with (METRICS_TOKEN), to read /metrics. */
export const METRICS_TOKEN = "bench-metrics-token-0123456789";

export interface CacheLookups {
  hits: number;
  misses: number;
}

/** The service's /metrics page (Prometheus text); null when it does not answer. */
export async function metricsText(baseUrl: string): Promise<string | null> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  if (!res.ok) {
    await res.arrayBuffer();
    return null;
  }
  return res.text();
}

/** The cache's lookups so far, summed over both doors; null when /metrics does not answer. */
export async function cacheLookups(baseUrl: string): Promise<CacheLookups | null> {
  const text = await metricsText(baseUrl);
  if (text === null) return null;
  const sum = (result: string) =>
    text
      .split("\n")
      .filter(
        (line) => line.startsWith("response_cache_lookups_total{") && line.includes(`result="${result}"`),
      )
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
  return { hits: sum("hit"), misses: sum("miss") };
}

/** Hits ÷ lookups between two readings; null without both or without a lookup. */
export function hitRatio(before: CacheLookups | null, after: CacheLookups | null): number | null {
  if (!before || !after) return null;
  const hits = after.hits - before.hits;
  const lookups = hits + after.misses - before.misses;
  return lookups > 0 ? hits / lookups : null;
}
