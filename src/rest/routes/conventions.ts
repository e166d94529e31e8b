// What every route of the table shares: the pagination selection, the one difference in enum
// spelling between the doors — REST says `published`, GraphQL `PUBLISHED` — and the `locale` parameter.
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
import { validationError } from "../errors.ts";
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
