// The values cursors carry, as zod schemas shared by every cursor module: each bounded to what the
// database can hold, so a well-formed cursor with an impossible value is refused as the client's
// mistake (400) instead of reaching a query and failing there (500).
import { z } from "zod";

/** The largest value of PostgreSQL's bigint, the type of Event.position. */
const MAX_BIGINT = 2n ** 63n - 1n;

/** The last moment of year 9999: the latest date the database (and a cursor) may hold. */
const LATEST_MOMENT = Date.parse("9999-12-31T23:59:59.999Z");

/** A position of the change log: a BIGSERIAL as decimal digits (JSON numbers lose precision past 2^53). */
export const LogPositionText = z
  .string()
  .regex(/^\d{1,19}$/)
  .refine((digits) => BigInt(digits) <= MAX_BIGINT, "Past the largest position");

/** A moment as milliseconds since 1970, from 1970 to the end of year 9999. */
export const CursorMoment = z.number().int().min(0).max(LATEST_MOMENT);

/**
 * A record's id as a cursor holds it: the ids the service makes are 25 characters; imported ones may
 * be longer, never over 64. PostgreSQL refuses NUL in text, so such an id was never issued.
 */
export const RecordIdText = z
  .string()
  .min(1)
  .max(64)
  .refine((id) => !id.includes("\0"), "No NUL");
