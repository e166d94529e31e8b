// Prisma's known errors, mapped once to the client errors they stand for (recognising them is
// src/db/recognise-prisma-errors.ts' part). Anything else stays unexpected and is masked by Yoga.
import type { GraphQLError } from "graphql";
import { isKnownPrismaError, postgresErrorCode, rawQueryEquivalent } from "../db/recognise-prisma-errors.ts";
import { conflictError, userInputError, vanishedRecordError } from "./errors.ts";

/** Returns the client error for a Prisma error a client can cause, or null. */
export function mapPrismaError(error: unknown): GraphQLError | null {
  if (!isKnownPrismaError(error)) return null;
  // Input the edge checks should have refused already; a safety net so it can never be a 500.
  if (postgresErrorCode(error) === UNTRANSLATABLE_CHARACTER)
    return userInputError("Text must not contain the NUL character (U+0000)");
  switch (rawQueryEquivalent(error) ?? error.code) {
    case "P2002": {
      const columns = uniqueViolationColumns(error.meta ?? {});
      if (columns.includes("key"))
        return conflictError("A field with this key already exists in the workspace", "key");
      if (columns.includes("value")) return userInputError("Option values must be unique within a field");
      if (columns.includes("code"))
        return conflictError("A locale with this code already exists in the workspace", "code");
      return conflictError("This slug is already used by another record of this kind in the workspace");
    }
    case "P2003":
      return userInputError("A referenced record does not exist");
    case "P2025": {
      // Required but not found: found by an earlier statement, deleted by a concurrent request since.
      const model = error.meta?.modelName;
      return vanishedRecordError(typeof model === "string" ? model : "Record");
    }
    default:
      return null;
  }
}

/**
 * SQLSTATE 22021 (character_not_in_repertoire): PostgreSQL's answer to U+0000 in text. Prisma reports
 * it as P2039 (query API) or P2010 (raw SQL).
 */
const UNTRANSLATABLE_CHARACTER = "22021";

/**
 * The columns of the violated unique constraint. Where they are depends on the driver adapter:
 * `meta.target` (classic engine), `cause.constraint.fields` (PGlite) or only the index name
 * `<Model>_<col>_<col>_key` (node-postgres). Matching words anywhere in the serialized meta is not
 * enough: every PostgreSQL message says "duplicate key value" and every index name ends in `_key`.
 */
export function uniqueViolationColumns(meta: Record<string, unknown>): string[] {
  const cause = (meta.driverAdapterError as { cause?: Record<string, unknown> } | undefined)?.cause;
  const constraint = cause?.constraint as { fields?: unknown; index?: unknown } | undefined;
  const target = meta.target;
  if (Array.isArray(constraint?.fields))
    return constraint.fields.map((field) => String(field).replace(/"/g, ""));
  if (Array.isArray(target)) return target.map(String);
  const index =
    typeof constraint?.index === "string"
      ? constraint.index
      : typeof target === "string"
        ? target
        : undefined;
  if (!index) return [];
  const model = typeof meta.modelName === "string" ? meta.modelName : "";
  const inner = index.replace(/_key$/, "").replace(new RegExp(`^${model}_`), "");
  return inner.split("_");
}
