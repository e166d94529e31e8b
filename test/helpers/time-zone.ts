import { afterAll, beforeAll } from "vitest";

// Runs a test file's tests in another time zone and gives the zone back after them. Node reads
// `process.env.TZ` again on every assignment; restoring it matters because a test worker may go on to
// run other files in the same process.
export function inTimeZone(zone: string): void {
  const before = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = zone;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });
}
