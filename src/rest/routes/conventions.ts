// What every route of the table shares: the pagination selection, the one difference in enum
// spelling between the doors — REST says `published`, GraphQL `PUBLISHED` — and the `locale` parameter.
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
import { validationError } from "../errors.ts";
import type { QueryParam } from "../query-params.ts";
import { RestInputError } from "../rest-input-error.ts";

/** The GraphQL selection of the contract's pagination object. */
export const PAGINATION_SELECTION =
  "pagination { limit currentPage nextPage previousPage totalPages totalItems }";

/** A REST enum value as a GraphQL enum name; anything that is not a string stays undefined. */
export function graphqlEnum(value: unknown): string | undefined {
  return typeof value === "string" ? value.toUpperCase() : undefined;
}

/**
 * A GraphQL result record with `key` turned back into the REST spelling. The record is changed in place:
 * execution results are built per request and belong to the route that reshapes them.
 */
export function withRestEnum(record: Record<string, unknown>, key: string): Record<string, unknown> {
  record[key] = String(record[key]).toLowerCase();
  return record;
}

/**
 * The `locale` query parameter (issue 56), canonical; a malformed one is a 400 naming `locale` (one the
 * workspace does not have is the operation's 400, naming it too).
 */
export function localeQuery(query: Record<string, unknown>): string | undefined {
  const locale = query.locale;
  if (typeof locale !== "string") return undefined;
  if (canonicalLocaleCode(locale) === null) {
    const refusal = validationError("Invalid locale code", [
      { field: "locale", message: localeCodeProblem(locale) },
    ]);
    throw new RestInputError(refusal.status, refusal.body);
  }
  return locale;
}

/** A read's `locale` and `fallback` (a malformed locale is a 400 naming it), and whether the answer shows them. */
export function readLocale(query: Record<string, unknown>) {
  const locale = localeQuery(query);
  if (locale === undefined && query.fallback !== undefined) {
    const refusal = validationError("Invalid query parameters", [
      { field: "fallback", message: "Only with `locale`" },
    ]);
    throw new RestInputError(refusal.status, refusal.body);
  }
  return { locale, fallback: query.fallback, localized: locale !== undefined };
}

/** `fallback`, with `locale`, on every read in a locale. */
export const FALLBACK_PARAM: QueryParam = {
  name: "fallback",
  kind: "string",
  maxLength: 200,
  description:
    "With `locale`: the locales to fall back to, comma separated, or `none`; default: the locale's fallback chain",
};

/** `locale` on category, tag and author reads (issue 56): which locale's name and description to serve. */
export const NAME_READ_LOCALE_PARAM: QueryParam = {
  name: "locale",
  kind: "string",
  maxLength: 35,
  description:
    "Serve the name and description (an author's bio) of this locale, or of its fallbacks' (the first that has them), or `auto`: the best match of the request's Accept-Language among the workspace's locales (the answer then says Vary: Accept-Language). A record none of them names is left out (404 for one). Each record then also carries `locale`, the locale that served it",
};

/** `locale` on category, tag and author writes (issue 56). */
export const NAME_WRITE_LOCALE_PARAM: QueryParam = {
  name: "locale",
  kind: "string",
  maxLength: 35,
  description:
    "The locale whose name and description (an author's bio) to write (a locale of the workspace, see /v1/locales); absent: the default locale's. An update with another locale writes that locale's (creating it when missing: it then needs `name`), the slug and other fields to the record; a delete with one removes only that locale's (not the default's: 409)",
};
