// Cursors of an endpoint's delivery log (newest first): the (createdAt, id) of the last delivery of a
// page, bound to the endpoint they were issued for. Checked, not signed: a forged one only pages
// through the caller's own endpoint.
import { z } from "zod";
import { userInputError } from "../errors.ts";
import { decodeCursor, encodeCursor } from "./cursor-codec.ts";
import { CursorMoment } from "./cursor-values.ts";

const Payload = z.tuple([z.literal(1), z.string().min(1).max(64), CursorMoment, z.string().max(64)]);

export function encodeDeliveryCursor(endpointId: string, at: { createdAt: Date; id: string }): string {
  return encodeCursor([1, endpointId, at.createdAt.getTime(), at.id]);
}

export function decodeDeliveryCursor(cursor: string, endpointId: string): { createdAt: Date; id: string } {
  const payload = decodeCursor(cursor, Payload);
  if (!payload || payload[1] !== endpointId)
    throw userInputError(
      "Invalid cursor: give back a nextCursor of this endpoint's delivery log, unchanged",
      [{ field: "after", message: "Not a cursor of this endpoint's deliveries" }],
    );
  return { createdAt: new Date(payload[2]), id: payload[3] };
}
