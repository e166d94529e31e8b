// How a locale code is spelled, for every layer: the GraphQL scalar LocaleCode, the REST door's input
// checks (which name the parameter at fault) and the content rules all read a code through this.
import { echoInput } from "./echo-input.ts";

/** Longer than any tag a site needs (RFC 5646 asks implementations to take 35 characters at least). */
const MAX_CODE_LENGTH = 35;

export const LOCALE_CODE_RULE = "Must be a BCP 47 language tag, such as en, en-US or pt-BR";

/**
 * The canonical spelling of a BCP 47 tag (`en-us` → `en-US`, `ZH-hant-tw` → `zh-Hant-TW`), or null when
 * `value` is not one. Intl's own canonicalisation, so the service and a browser's `navigator.language`
 * spell a tag the same way.
 */
export function canonicalLocaleCode(value: string): string | null {
  if (value.length === 0 || value.length > MAX_CODE_LENGTH) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(value);
    return canonical ?? null;
  } catch {
    // RangeError: not a well-formed Unicode BCP 47 locale identifier.
    return null;
  }
}

/** What is wrong with `value` as a locale code, as every door says it. */
export function localeCodeProblem(value: string): string {
  return `"${echoInput(value)}" is not a valid locale code. ${LOCALE_CODE_RULE}`;
}
