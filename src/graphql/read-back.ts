// Mutations find a record, write it, then read it back for the client's selection. A concurrent DELETE
// can land between the write and the read: the record is then gone, and the client hears the 404 it
// would have had a moment later, naming the record as it asked for it (never Prisma's "not found", a 500).
import { notFoundError } from "./errors.ts";

export async function readBack<Row>(
  read: Promise<Row | null>,
  resource: string,
  identifier: string,
): Promise<Row> {
  const row = await read;
  if (row === null) throw notFoundError(resource, identifier);
  return row;
}
