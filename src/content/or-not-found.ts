// Writes address a record by the id an earlier statement found. When a concurrent DELETE has removed it
// since, Prisma answers "record not found" (P2025): for the client that is the 404 it would have had a
// moment later, naming the record as it asked for it.
import { isRecordNotFound } from "../db/recognise-prisma-errors.ts";
import { NotFoundError } from "../domain/errors.ts";

export async function orNotFound<Result>(
  write: Promise<Result>,
  resource: string,
  identifier: string,
): Promise<Result> {
  try {
    return await write;
  } catch (error) {
    if (isRecordNotFound(error)) throw new NotFoundError(resource, identifier);
    throw error;
  }
}
