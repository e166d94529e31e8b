// The change log (`events`, /v1/events) and the change feed (`changes`, /v1/changes) carry records'
// whole read forms, and a record can be larger than an answer may be (GRAPHQL_MAX_RESPONSE_BYTES): an
// import writes bodies no API request could send, and the cap is a setting that can be lowered after the
// records were written. A page holding one was refused whole, every time — the cursor never moved past
// it, and nothing after it could be read.
//
// Why a smaller form rather than a size bound at write time: a bound at write time cannot hold for
// records written before it, nor for a cap lowered later, nor for a page of many records each under
// it; and the feeds' positions (change-feed-log.ts) are computed before the records are rendered, so a
// page cannot simply stop early. Instead a page always fits: when its records' data together would
// pass the cap, the largest are served in a smaller form until the rest fits — their small fields
// (ids, slug, title, status, dates …) kept, each large one left out and named in `omittedFields`. A
// client reads such a record whole with its GET (or with a smaller `limit`, which gives each record
// more of the answer).
import { jsonSizeUpTo } from "./plugins/use-response-size-limit.ts";

/** What a page's answer needs per entry besides its data (cursor, type, ids, slug, dates), at most. */
const ENTRY_OVERHEAD_BYTES = 1_024;
/** A field larger than this is left out of a smaller form. */
const SMALL_FIELD_BYTES = 512;

/**
 * The data of a page's entries, in order, fitted into an answer of `maxBytes`: unchanged when they fit,
 * else with the largest replaced by their smaller form (smallerForm) until the total fits.
 */
export function fitFeedData(
  data: readonly (Record<string, unknown> | null)[],
  maxBytes: number,
): (Record<string, unknown> | null)[] {
  const budget = Math.max(0, maxBytes - (data.length + 1) * ENTRY_OVERHEAD_BYTES);
  const fitted = [...data];
  const sizes = data.map((item) => (item ? jsonSizeUpTo(item, budget + 1) : 0));
  let total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= budget) return fitted;
  const largestFirst = sizes.map((_, index) => index).sort((a, b) => (sizes[b] ?? 0) - (sizes[a] ?? 0));
  for (const index of largestFirst) {
    const item = fitted[index];
    if (total <= budget || !item) break;
    const smaller = smallerForm(item);
    fitted[index] = smaller;
    total += jsonSizeUpTo(smaller, budget + 1) - (sizes[index] ?? 0);
  }
  return fitted;
}

/** The record with every field larger than SMALL_FIELD_BYTES left out, and named in `omittedFields`. */
export function smallerForm(data: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const omittedFields: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (jsonSizeUpTo(value, SMALL_FIELD_BYTES) <= SMALL_FIELD_BYTES) kept[name] = value;
    else omittedFields.push(name);
  }
  return { ...kept, omittedFields };
}
