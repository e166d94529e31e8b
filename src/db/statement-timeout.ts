// Recognising a statement PostgreSQL cancelled at its deadline (DATABASE_STATEMENT_TIMEOUT_MS): SQLSTATE
// 57014 (query_canceled), whichever way it arrives — from node-postgres directly (raw SQL), or wrapped
// by Prisma's driver adapter (its known errors' meta, or the error's cause).
const QUERY_CANCELED = "57014";

export function isStatementTimeout(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at && typeof at === "object" && depth < 5; depth++) {
    const candidate = at as {
      code?: unknown;
      meta?: { driverAdapterError?: { cause?: { code?: unknown } } };
      cause?: unknown;
    };
    if (candidate.code === QUERY_CANCELED) return true;
    if (candidate.meta?.driverAdapterError?.cause?.code === QUERY_CANCELED) return true;
    at = candidate.cause;
  }
  return false;
}
