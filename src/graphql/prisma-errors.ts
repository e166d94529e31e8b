// Prisma's known errors, mapped once to the client errors they stand for. Anything else stays
// unexpected and is masked by Yoga.
import type { GraphQLError } from "graphql";
import { conflictError, userInputError } from "./errors.ts";

interface KnownPrismaError {
  code: string;
  meta?: Record<string, unknown>;
}

function isKnownPrismaError(error: unknown): error is KnownPrismaError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: string }).name === "PrismaClientKnownRequestError" &&
    typeof (error as { code?: unknown }).code === "string"
  );
}

/** Returns the client error for a Prisma error a client can cause, or null. */
export function mapPrismaError(error: unknown): GraphQLError | null {
  if (!isKnownPrismaError(error)) return null;
  switch (rawQueryEquivalent(error) ?? error.code) {
    case "P2002": {
      const columns = uniqueViolationColumns(error.meta ?? {});
      if (columns.includes("key"))
        return conflictError("A field with this key already exists in the workspace", "key");
      if (columns.includes("value")) return userInputError("Option values must be unique within a field");
      return conflictError("This slug is already used by another record of this kind in the workspace");
    }
    case "P2003":
      return userInputError("A referenced record does not exist");
    default:
      return null;
  }
}

/** Raw SQL writes fail as P2010 with the driver's error kind; treat them like the query API's codes. */
function rawQueryEquivalent(error: KnownPrismaError): string | null {
  if (error.code !== "P2010") return null;
  const kind = (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause?.kind;
  if (kind === "UniqueConstraintViolation") return "P2002";
  if (kind === "ForeignKeyConstraintViolation") return "P2003";
  return null;
}

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
