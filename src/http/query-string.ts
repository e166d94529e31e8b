// The query parser of every request (Express's "query parser" setting): qs, as Express's "extended"
// parser runs it, with a shortcut for the query strings nearly every request has — flat `name=value`
// pairs, each name once. For those the answer is qs's own (test/unit/query-string.test.ts checks it on
// generated strings); qs's general machinery (bracket keys, nesting, merging, compaction) was 1.5–2.5%
// of an uncached list's CPU (bench/README.md, "Trims on the uncached list"). Anything else — brackets
// (`tags[]=x`, which the routes refuse with a 400), a repeated name, an empty or `__proto__` name, more
// pairs than qs takes — goes to qs itself.
import qs from "qs";

/** qs with Express's extended options (express/lib/utils.js). */
const QS_OPTIONS = { allowPrototypes: true } as const;
/** qs's default parameterLimit: past it, qs drops pairs, and so must we. */
const QS_PARAMETER_LIMIT = 1_000;
/** Brackets, written or percent-encoded: qs reads them as nesting. */
const NESTING = /[[\]]|%5[bd]/i;

/** The query of a request; Express passes null when its URL has none. */
export function parseQueryString(text: string | null | undefined): Record<string, unknown> {
  return (text && flatPairs(text)) || qs.parse(text ?? "", QS_OPTIONS);
}

/** `text` as distinct flat `name=value` pairs, as qs reads them; null when it is anything else. */
function flatPairs(text: string): Record<string, string> | null {
  if (NESTING.test(text)) return null;
  const pairs = text.split("&");
  if (pairs.length > QS_PARAMETER_LIMIT) return null;
  const query: Record<string, string> = {};
  for (const pair of pairs) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = decode(equals === -1 ? pair : pair.slice(0, equals));
    if (name === "" || name === "__proto__" || Object.hasOwn(query, name)) return null;
    query[name] = equals === -1 ? "" : decode(pair.slice(equals + 1));
  }
  return query;
}

/** qs's decoder for UTF-8: `+` is a space, and a malformed escape leaves the text as it is. */
function decode(text: string): string {
  const spaced = text.indexOf("+") === -1 ? text : text.replace(/\+/g, " ");
  if (spaced.indexOf("%") === -1) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
