// Rows of the post read model (post-rows.ts) answer their fields directly, without plugin-prisma's
// per-row bookkeeping.
//
// plugin-prisma wraps every field that has a Prisma `select` (a post's body, category, tags, authors and
// field values) so that, row by row, it can tell whether the row was loaded with that selection or
// whether the field must load it itself: a lookup of the row's response path in the plan's records, and
// records for the row's children. A read-model row is only ever made for a plan the read model covers
// entirely (readModelCovers): it holds every relation its fields can ask for, and its children's
// selections hold no field with a `select` of its own (the plan asks for them as `true`). So for these
// rows the answer is the field's own resolver on the row — what the wrapper would call after its
// lookups. Measured in the bench's profile: the wrapper's lookups and records were about a tenth of
// the service's CPU for a REST list of ten posts.
import { type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from "graphql";

const READ_MODEL_ROW = Symbol("post read-model row");

/**
 * Marks a row made by the read model for a covered plan (in place: the row is the caller's own). The mark
 * is not enumerable: the row still equals Prisma's for the same plan, key for key.
 */
export function markReadModelRow(row: object): void {
  Object.defineProperty(row, READ_MODEL_ROW, { value: true });
}

function isReadModelRow(parent: unknown): boolean {
  return (parent as Record<symbol, unknown> | null)?.[READ_MODEL_ROW] === true;
}

/** For the `Post` fields plugin-prisma wraps: read-model rows go straight to the field's own resolver. */
export function answerReadModelRowsDirectly(schema: GraphQLSchema, typeName = "Post"): void {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the schema`);
  for (const field of Object.values(type.getFields())) {
    const wrapped = field.resolve;
    const own = field.extensions?.pothosOriginalResolve as GraphQLFieldResolver<unknown, unknown> | undefined;
    if (!wrapped || !own || !field.extensions?.pothosPrismaSelect) continue;
    field.resolve = (parent, args, context, info) =>
      isReadModelRow(parent) ? own(parent, args, context, info) : wrapped(parent, args, context, info);
  }
}
