// A record named by an identifier that is its id or its slug (a field's key), as the API's paths and
// GraphQL's `identifier` arguments take them.
//
// An exact id comes first: a slug names a record only when no record of that kind in the workspace has
// that identifier as its id. A slug may be any string, so one record's slug can be another's id (a
// PATCH setting it, an import); `id = x OR slug = x` then matched both, and the answer depended on the
// rows' order — and the response cache, which records the post an answer showed, kept serving the
// other one, so instances disagreed. With the exclusion in the statement itself (one statement, no
// second round trip), what an identifier names changes only when a record with that id appears or
// goes, never with statuses or row order.
import type { Prisma } from "../generated/prisma/client.ts";

/** The workspace's relations that hold records looked up by identifier (Workspace in the schema). */
type IdentifiedRecords = "posts" | "categories" | "tags" | "authors";

/** Prisma's `where` for the record of `records` in the workspace that `identifier` names. */
export function byIdentifier<R extends IdentifiedRecords>(
  workspaceId: string,
  identifier: string,
  records: R,
) {
  const noSuchId = { [records]: { none: { id: identifier } } } as { [K in R]: { none: { id: string } } };
  return {
    workspaceId,
    OR: [{ id: identifier }, { slug: identifier, workspace: noSuchId }],
  };
}

/** The same for fields, named by id or key. */
export function fieldByIdentifier(workspaceId: string, identifier: string): Prisma.FieldWhereInput {
  return {
    workspaceId,
    OR: [{ id: identifier }, { key: identifier, workspace: { fields: { none: { id: identifier } } } }],
  };
}

/**
 * The same as a SQL condition on `alias`, a row of `table` (the read model's statements); `identifier`
 * is the parameter's placeholder. The exclusion is one primary-key lookup.
 */
export function identifierCondition(table: "Post", alias: string, identifier: string): string {
  const sameId = `SELECT 1 FROM "${table}" same_id WHERE same_id.id = ${identifier} AND same_id."workspaceId" = ${alias}."workspaceId"`;
  return `(${alias}.id = ${identifier} OR (${alias}.slug = ${identifier} AND NOT EXISTS (${sameId})))`;
}
