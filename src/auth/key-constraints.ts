// What an API key is bound to besides its scopes (issue 57): the browser origins a public key answers
// (it is embedded in web pages, so the `Origin` a browser sends is what can be checked), the client
// address ranges a private key answers (the address the rate limiter sees, so TRUST_PROXY applies the
// same way), and the longest a workspace lets a private key live. Checked when a key is made and on
// every request that presents it; the request check is a set lookup and a few range matches, no statement.
import ipaddr from "ipaddr.js";
import { echoInput } from "../domain/echo-input.ts";
import { ForbiddenError, InvalidInputError } from "../domain/errors.ts";

/** Enough for a site's production, preview and local origins, or an office's and a CI's ranges. */
export const MAX_CONSTRAINTS = 20;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Origins as browsers send them (`https://www.example.com`, `http://localhost:5173`): scheme, host and
 * port, lower-cased, no path. `*` is not an origin: an empty list already means any.
 */
export function checkedOrigins(origins: readonly string[]): string[] {
  const field = "allowedOrigins";
  if (origins.length > MAX_CONSTRAINTS) throw tooMany(field);
  const checked = origins.map((origin) => {
    const trimmed = origin.trim().toLowerCase();
    let parsed: URL | null = null;
    try {
      parsed = new URL(trimmed);
    } catch {}
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== trimmed.replace(/\/$/, ""))
      throw new InvalidInputError(
        `${echoInput(origin)} is not an origin: give the scheme, host and port only, as a browser sends them (https://www.example.com)`,
        [{ field, message: `Not an origin: ${echoInput(origin)}` }],
      );
    return parsed.origin;
  });
  return [...new Set(checked)];
}

/** Addresses (`203.0.113.7`) or CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`), stored as ranges. */
export function checkedAddressRanges(ranges: readonly string[]): string[] {
  const field = "allowedAddresses";
  if (ranges.length > MAX_CONSTRAINTS) throw tooMany(field);
  const checked = ranges.map((range) => {
    const parsed = parseRange(range.trim());
    if (!parsed)
      throw new InvalidInputError(
        `${echoInput(range)} is not an IP address or CIDR range (203.0.113.7, 10.0.0.0/8, 2001:db8::/32)`,
        [{ field, message: `Not an address range: ${echoInput(range)}` }],
      );
    return `${parsed[0].toString()}/${parsed[1]}`;
  });
  return [...new Set(checked)];
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRange(text: string): Range | null {
  try {
    if (text.includes("/")) {
      const [address, bits] = ipaddr.parseCIDR(text);
      // The network address, so that 10.1.2.3/8 is kept as 10.0.0.0/8.
      const network =
        address.kind() === "ipv4"
          ? ipaddr.IPv4.networkAddressFromCIDR(text)
          : ipaddr.IPv6.networkAddressFromCIDR(text);
      return [network, bits];
    }
    const address = ipaddr.process(text);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  } catch {
    return null;
  }
}

/** Whether `address` (as the rate limiter sees it; IPv4-mapped IPv6 counts as IPv4) is in one of `ranges`. */
export function addressAllowed(ranges: readonly string[], address: string | undefined): boolean {
  if (ranges.length === 0) return true;
  if (!address || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return ranges.some((text) => {
    const range = parseRange(text);
    return range !== null && range[0].kind() === parsed.kind() && parsed.match(range as never);
  });
}

/** Whether a browser's `Origin` is one a key answers; no Origin at all is not a browser on those sites. */
export function originAllowed(origins: readonly string[], origin: string | undefined): boolean {
  if (origins.length === 0) return true;
  return origin !== undefined && origins.includes(origin.toLowerCase());
}

/**
 * A key bound to address ranges cannot make a key that is not: the new key's ranges must each lie
 * inside one of its own (given none, it gets the maker's). Otherwise a key usable only from the office
 * could mint one usable from anywhere.
 */
export function addressRangesWithin(maker: readonly string[], asked: readonly string[]): string[] {
  if (maker.length === 0) return [...asked];
  if (asked.length === 0) return [...maker];
  const outside = asked.find((text) => {
    const child = parseRange(text);
    return !maker.some((parentText) => {
      const parent = parseRange(parentText);
      return (
        child !== null &&
        parent !== null &&
        child[0].kind() === parent[0].kind() &&
        child[1] >= parent[1] &&
        child[0].match(parent as never)
      );
    });
  });
  if (outside)
    throw new ForbiddenError(
      `This API key cannot give a key the address range ${outside}, which is outside its own`,
    );
  return [...asked];
}

/**
 * A private key's expiry within the workspace's maximum lifetime: none asked is the maximum; a later
 * one is refused (never silently shortened: the owner would find out when it stops working).
 */
export function expiryWithinLifetime(
  expiresAt: Date | null,
  maxLifetimeDays: number | null,
  now = Date.now(),
): Date | null {
  if (maxLifetimeDays === null) return expiresAt;
  const latest = now + maxLifetimeDays * DAY_MS;
  if (expiresAt === null) return new Date(latest);
  if (expiresAt.getTime() > latest)
    throw new InvalidInputError(
      `This workspace's private keys live at most ${maxLifetimeDays} days: expire it by ${new Date(latest).toISOString()}`,
      [{ field: "expiresAt", message: `At most ${maxLifetimeDays} days from now` }],
    );
  return expiresAt;
}

/** A workspace's maximum private key lifetime: whole days, 1 to 3650, or none. */
export function checkedLifetimeDays(days: number | null): number | null {
  if (days === null) return null;
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new InvalidInputError("A maximum key lifetime is a whole number of days from 1 to 3650", [
      { field: "privateKeyMaxLifetimeDays", message: "1 to 3650 days" },
    ]);
  return days;
}

function tooMany(field: string): InvalidInputError {
  return new InvalidInputError(`A key takes at most ${MAX_CONSTRAINTS} ${field}`, [
    { field, message: `At most ${MAX_CONSTRAINTS}` },
  ]);
}
