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
  switch (error.code) {
    case "P2002": {
      const target = JSON.stringify(error.meta ?? {});
      if (target.includes("key")) return conflictError("A field with this key already exists in the workspace", "key");
      if (target.includes("value")) return userInputError("Option values must be unique within a field");
      return conflictError("This slug is already used by another record of this kind in the workspace");
    }
    case "P2003":
      return userInputError("A referenced record does not exist");
    default:
      return null;
  }
}
