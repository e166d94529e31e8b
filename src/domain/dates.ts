// Dates a client may send. PostgreSQL's timestamp(3) has no year 0 (1 BC is followed by AD 1) and
// reads the ISO form of years beyond 9999 (`+010000-…`) no better than most clients do, so a date
// outside the years 1–9999 (in UTC, where it is stored) would fail in the database: it is refused
// as input instead.

export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;
export const DATE_RANGE_PROBLEM = `Must be a date-time between the years ${MIN_YEAR} and ${MAX_YEAR} (UTC)`;

export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= MIN_YEAR && year <= MAX_YEAR;
}

/**
 * Whether the `YYYY-MM-DD` an ISO string starts with is a day of the calendar. `new Date` quietly
 * moves "2024-02-30" to 1 March; the client meant a day that does not exist.
 */
export function isCalendarDay(isoText: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoText);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
