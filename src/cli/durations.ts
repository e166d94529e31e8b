// The CLI's spelling of a time span (`--expires 90d`, `--grace 24h`): a whole number and a unit.
import { InvalidArgumentError } from "commander";

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90d`, `24h`, `30m`, `45s` in milliseconds; anything else is bad usage. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(text.trim());
  if (!match?.[1] || !match[2])
    throw new InvalidArgumentError(
      `"${text}" is not a duration: a whole number and s, m, h or d (e.g. 90d, 24h)`,
    );
  return Number(match[1]) * (UNIT_MS[match[2]] ?? 0);
}

/** `--expires`: a duration from now (90d) or a moment (2027-01-31, 2027-01-31T12:00:00Z), as ISO text. */
export function parseExpiry(text: string, now = Date.now()): string {
  if (/^\d+[smhd]$/.test(text.trim())) return new Date(now + parseDuration(text)).toISOString();
  const moment = new Date(text);
  if (Number.isNaN(moment.getTime()))
    throw new InvalidArgumentError(`"${text}" is neither a duration (90d) nor a date (2027-01-31)`);
  return moment.toISOString();
}

/** `workspace key-lifetime`: whole days (`90` or `90d`), or `none` (no maximum). */
export function parseLifetimeDays(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "none") return null;
  const match = /^(\d{1,4})d?$/.exec(trimmed);
  if (!match?.[1]) throw new InvalidArgumentError(`"${text}" is not a number of days (90, 90d) or none`);
  return Number(match[1]);
}
