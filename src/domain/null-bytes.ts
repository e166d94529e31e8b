// PostgreSQL text cannot hold U+0000 (NUL): a query carrying one fails with SQLSTATE 22021. Nor can a
// string with an unpaired UTF-16 surrogate be stored faithfully: PostgreSQL refuses one inside JSON
// (custom field values), and the embedded database's parameter encoding garbles it. No title, slug,
// identifier or filter of the service can need either, so every door refuses such input before it
// reaches a query (src/http/refuse-null-bytes.ts, src/graphql/use-null-byte-guard.ts).

export const NUL_PROBLEM = "Must not contain the NUL character (U+0000)";
export const LONE_SURROGATE_PROBLEM =
  "Must be well-formed Unicode (an unpaired surrogate U+D800-U+DFFF is not)";

/** With the `u` flag a well-formed pair is one code point outside this range: only a lone half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** What is wrong with a string, or null when it can be stored. */
export function unstorableTextProblem(text: string): string | null {
  if (text.includes("\0")) return NUL_PROBLEM;
  if (LONE_SURROGATE.test(text)) return LONE_SURROGATE_PROBLEM;
  return null;
}

/** Where the first string that cannot be stored is (see `findNullByte`), and what is wrong with it. */
export function findUnstorableText(value: unknown): { path: string; problem: string } | null {
  const path = findString(value, (text) => unstorableTextProblem(text) !== null);
  if (path === null) return null;
  const text = stringAt(value, path);
  return { path, problem: unstorableTextProblem(text) ?? NUL_PROBLEM };
}

/**
 * Where the first NUL in a JSON-like value is, in a string or an object key: its path as `a.b.0`
 * ("" when `value` itself is such a string), or null when there is none. Only arrays and plain
 * objects are entered (an uploaded File is not). Walks with an explicit stack, because a 1 MB JSON body
 * can nest far deeper than the call stack allows.
 */
export function findNullByte(value: unknown): string | null {
  return findString(value, (text) => text.includes("\0"));
}

function findString(value: unknown, isBad: (text: string) => boolean): string | null {
  const stack: Visit[] = [{ value, parent: null, segment: "" }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === "string") {
      if (isBad(current)) return pathOf(visit);
    } else if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++)
        stack.push({ value: current[index], parent: visit, segment: String(index) });
    } else if (isPlainObject(current)) {
      for (const [key, item] of Object.entries(current)) {
        const child = { value: item, parent: visit, segment: key };
        if (isBad(key)) return pathOf(child);
        stack.push(child);
      }
    }
  }
  return null;
}

interface Visit {
  value: unknown;
  parent: Visit | null;
  segment: string;
}

function pathOf(visit: Visit): string {
  const segments: string[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) segments.push(at.segment);
  return segments.reverse().join(".");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The string at `path` (or the key named last, when the key itself is the bad string). */
function stringAt(value: unknown, path: string): string {
  if (path === "") return typeof value === "string" ? value : "";
  let current: unknown = value;
  const segments = path.split(".");
  for (const [index, segment] of segments.entries()) {
    const next = (current as Record<string, unknown> | undefined)?.[segment];
    if (index === segments.length - 1 && typeof next !== "string") return segment;
    current = next;
  }
  return typeof current === "string" ? current : "";
}
