// The rules of a workspace's locales that need no database: how a code is spelled, what a locale is
// called when no name is given, and which fallback chains are allowed. locales.ts applies them to the
// stored locales. A code's spelling is domain/locale-codes.ts' (the GraphQL scalar and the REST door use
// it too), so every door accepts `en-us` and stores `en-US`.
import { type FieldProblem, InvalidInputError } from "../../domain/errors.ts";
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";

/** The longest chain of fallbacks a locale may have: enough for any real site, short enough to read in SQL. */
export const MAX_FALLBACK_LENGTH = 5;

/** The problem with `value` as the locale code of input `field`, or the canonical code. */
export function checkedLocaleCode(field: string, value: string): string | FieldProblem {
  return canonicalLocaleCode(value) ?? { field, message: localeCodeProblem(value) };
}

/** The canonical code, or an InvalidInputError naming `field` (a path parameter, an argument). */
export function requireLocaleCode(field: string, value: string): string {
  const checked = checkedLocaleCode(field, value);
  if (typeof checked !== "string") throw new InvalidInputError("Invalid locale code", [checked]);
  return checked;
}

/**
 * The name a locale gets when none is given: the language's English name as ICU knows it (`de` →
 * "German", `en-US` → "American English"), as the migration named every workspace's first locale
 * "English"; a language ICU does not know is called by its code.
 */
export function defaultLocaleName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language", fallback: "code" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The problems of a fallback chain given for locale `code` (its entries already canonical): each entry
 * a code of the workspace (`known`), not the locale itself, no entry twice, at most MAX_FALLBACK_LENGTH.
 */
export function fallbackProblems(
  code: string,
  fallback: readonly string[],
  known: ReadonlySet<string>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (fallback.length > MAX_FALLBACK_LENGTH)
    problems.push({ field: "fallback", message: `At most ${MAX_FALLBACK_LENGTH} locales` });
  const seen = new Set<string>();
  fallback.forEach((entry, index) => {
    const field = `fallback.${index}`;
    if (entry === code) problems.push({ field, message: `A locale cannot fall back to itself (${code})` });
    else if (!known.has(entry))
      problems.push({ field, message: `No locale "${entry}" in this workspace; add it first` });
    else if (seen.has(entry)) problems.push({ field, message: `"${entry}" is already in the chain` });
    seen.add(entry);
  });
  return problems;
}

/**
 * A cycle that giving locale `code` the chain `fallback` would make across the workspace's chains
 * (`chains`: every locale's current chain), as the codes along it (`["de", "fr", "de"]`), or null.
 * The chains are acyclic before the change, so a new cycle passes through `code`: a path from `code`
 * back to itself.
 */
export function fallbackCycle(
  code: string,
  fallback: readonly string[],
  chains: ReadonlyMap<string, readonly string[]>,
): string[] | null {
  const next = (of: string) => (of === code ? fallback : (chains.get(of) ?? []));
  const visited = new Set<string>();
  const walk = (from: string, path: string[]): string[] | null => {
    for (const to of next(from)) {
      if (to === code) return [...path, to];
      if (visited.has(to)) continue;
      visited.add(to);
      const found = walk(to, [...path, to]);
      if (found) return found;
    }
    return null;
  };
  return walk(code, [code]);
}
