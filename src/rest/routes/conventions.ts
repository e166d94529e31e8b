// What every route of the table shares: the pagination selection, and the one difference in enum
// spelling between the doors — REST says `published`, GraphQL `PUBLISHED`.

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
