// Ids for rows written with SQL directly: the same shape as Prisma's cuid() (a "c", a time part,
// random characters; 25 characters), so ids stay uniform whichever path created a row.
import { randomBytes } from "node:crypto";

export function newId(): string {
  const time = Date.now().toString(36).padStart(9, "0").slice(-9);
  const random = BigInt(`0x${randomBytes(10).toString("hex")}`)
    .toString(36)
    .padStart(15, "0")
    .slice(-15);
  return `c${time}${random}`;
}
