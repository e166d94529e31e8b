// Recognising Prisma's known errors, whichever driver adapter raised them. What a client hears for each
// is decided elsewhere: the content rules turn the ones they expect into domain errors, and
// src/graphql/map-prisma-errors.ts maps the rest once for every resolver.

export interface KnownPrismaError {
  code: string;
  meta?: Record<string, unknown>;
}

export function isKnownPrismaError(error: unknown): error is KnownPrismaError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: string }).name === "PrismaClientKnownRequestError" &&
    typeof (error as { code?: unknown }).code === "string"
  );
}

/** Prisma's "required record not found" (P2025): an update or delete found no row to change. */
export function isRecordNotFound(error: unknown): boolean {
  return isKnownPrismaError(error) && error.code === "P2025";
}

/** A foreign key refused the statement: a row it points at, or a row pointing at it, is in the way. */
export function isForeignKeyViolation(error: unknown): boolean {
  return isKnownPrismaError(error) && (rawQueryEquivalent(error) ?? error.code) === "P2003";
}

/**
 * The SQLSTATE PostgreSQL answered with, where Prisma passes it on: in the driver adapter's cause, on
 * both PGlite and node-postgres.
 */
export function postgresErrorCode(error: KnownPrismaError): string | undefined {
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: string; code?: unknown } } | undefined)
    ?.cause;
  return cause?.kind === "postgres" && typeof cause.code === "string" ? cause.code : undefined;
}

/** Raw SQL writes fail as P2010 with the driver's error kind; treat them like the query API's codes. */
export function rawQueryEquivalent(error: KnownPrismaError): string | null {
  if (error.code !== "P2010") return null;
  const kind = (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause?.kind;
  if (kind === "UniqueConstraintViolation") return "P2002";
  if (kind === "ForeignKeyConstraintViolation") return "P2003";
  return null;
}

/** A unique index refused the statement: another row already holds the value (a concurrent write's, too). */
export function isUniqueViolation(error: unknown): boolean {
  return isKnownPrismaError(error) && (rawQueryEquivalent(error) ?? error.code) === "P2002";
}
