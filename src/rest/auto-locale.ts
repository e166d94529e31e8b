// `?locale=auto` on the post reads (issue 56): the locale is chosen from the request's Accept-Language
// among the workspace's locales, before anything else about the request is decided — the route then runs
// as if that code had been asked for, and its cached answer is stored under it. Matching is Negotiator's
// (through `accepts`, which the service already uses for Accept-Encoding): quality values order the
// ranges, `q=0` refuses one, and a range matches a locale of its language (`de-CH` → `de`) or one of
// whose language it is (`de` → `de-CH`). Nothing acceptable, or no header: the workspace's default.
import type { IncomingMessage } from "node:http";
import accepts from "accepts";

/** The value of `locale` that asks for this negotiation. */
export const AUTO_LOCALE = "auto";

/** The workspace's locales, as the choice needs them (the `locales` query: the default first). */
export const AUTO_LOCALE_DOCUMENT = "query AutoLocale { locales { code isDefault } }";

export interface NegotiableLocale {
  code: string;
  isDefault: boolean;
}

/** Whether a request's `locale` parameter asks for the choice (only a single `locale=auto`). */
export function asksAutoLocale(query: Record<string, unknown>): boolean {
  return typeof query.locale === "string" && query.locale.toLowerCase() === AUTO_LOCALE;
}

/** The locale to serve `req` in: the best match of its Accept-Language, else the default locale. */
export function negotiateLocale(req: IncomingMessage, locales: readonly NegotiableLocale[]): string {
  // The default first: on equal preference (`*`, or no header) it wins.
  const ordered = [...locales].sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
  const fallback = ordered[0]?.code;
  if (fallback === undefined) throw new Error("A workspace without locales");
  const chosen = accepts(req).languages(ordered.map((locale) => locale.code));
  return typeof chosen === "string" ? chosen : fallback;
}
