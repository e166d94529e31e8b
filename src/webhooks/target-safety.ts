// Where webhooks may be sent. A webhook makes this service issue requests to a URL a client chose, so
// without a check any API key could make it reach what only the service can: its own loopback, the
// private network, the cloud metadata address (169.254.169.254). Only http and https are allowed, and
// only globally routable unicast addresses: everything ipaddr.js classifies otherwise is refused
// (loopback, RFC 1918 private, unique-local fc00::/7, link-local 169.254/16 and fe80::/10, unspecified,
// CGNAT 100.64/10, multicast, broadcast, reserved and documentation ranges, and the IPv6 forms that
// carry an IPv4 address: IPv4-mapped ::ffff:0:0/96 is judged by the IPv4 address it maps, NAT64, 6to4
// and Teredo are refused outright).
//
// Two checks, because a name can change what it points at:
// - `unsafeTargetReason(url)`, synchronous, when an endpoint is created or updated: the scheme, a
//   literal address, and names that are loopback by definition (`localhost`, `*.localhost`);
// - `resolveSafeAddress(url)` at delivery time: every address the name resolves to must be allowed,
//   and the sender connects to the address returned (not to the name again), so a name that answered
//   a public address at creation and a private one now (DNS rebinding) is refused; `pinnedLookup`
//   is that connection's lookup.
// Importers fetching media and /v1 pages by URL (src/transfer/remote-fetch.ts) use the same two checks,
// on every hop of a redirect.
// `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_TARGETS, for local development and tests) lifts the address
// rules; the scheme rule stays.
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

export interface TargetPolicy {
  /** Allow loopback, private and other non-public addresses (local development and tests). */
  allowPrivate: boolean;
}

const NOT_PUBLIC = "must not point at a loopback, private, link-local or other non-public address";

/**
 * IPv4-compatible IPv6 addresses (::a.b.c.d, deprecated by RFC 4291) are not in ipaddr.js's special
 * ranges, so `[::127.0.0.1]` would pass as unicast; nothing legitimate uses them.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/** Whether a literal address (IPv4, or IPv6 without brackets) is one a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it maps, judged as such.
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv6" && parsed.match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === "unicast";
}

/** `localhost`, `x.localhost` (RFC 6761: always loopback), with or without the root's trailing dot. */
function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** The URL's host as an address when it is a literal one (brackets of IPv6 removed), else null. */
function literalAddressOf(url: URL): string | null {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) ? host : null;
}

function parseTarget(url: string): URL | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "must use http or https";
  if (!parsed.hostname) return "must name a host";
  return parsed;
}

/**
 * Why `url` may not be a webhook target, judged without DNS (on create and update), or null when it
 * may. The WHATWG URL parser has already normalized the host (`http://2130706433/`, `http://0x7f.1/`
 * and `http://127.1/` all become 127.0.0.1), so the literal checked is the one that would be dialed.
 */
export function unsafeTargetReason(url: string, policy: TargetPolicy): string | null {
  const parsed = parseTarget(url);
  if (typeof parsed === "string") return parsed;
  if (policy.allowPrivate) return null;
  if (isLoopbackName(parsed.hostname)) return NOT_PUBLIC;
  const literal = literalAddressOf(parsed);
  if (literal !== null && !isPublicAddress(literal)) return NOT_PUBLIC;
  return null;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How names are resolved: node's resolver (the system's, as an HTTP client would use) unless a test gives one. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

export class UnsafeTargetError extends Error {
  override name = "UnsafeTargetError";
}

/**
 * The address a delivery to `url` must connect to, after checking every address its host resolves to
 * (one private answer among public ones refuses the whole name: the client could be handed either).
 * Throws UnsafeTargetError when the target is not allowed, and the resolver's error when the name does
 * not resolve.
 */
export async function resolveSafeAddress(
  url: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<ResolvedAddress> {
  const reason = unsafeTargetReason(url, policy);
  if (reason !== null) throw new UnsafeTargetError(`The webhook URL ${reason}.`);
  const parsed = new URL(url);
  const literal = literalAddressOf(parsed);
  if (literal !== null) return { address: literal, family: literal.includes(":") ? 6 : 4 };
  const addresses = await resolve(parsed.hostname);
  const [first] = addresses;
  if (first === undefined) throw new UnsafeTargetError(`${parsed.hostname} resolved to no address.`);
  if (!policy.allowPrivate) {
    const refused = addresses.find(({ address }) => !isPublicAddress(address));
    if (refused)
      throw new UnsafeTargetError(
        `${parsed.hostname} resolves to ${refused.address}: the webhook URL ${NOT_PUBLIC}.`,
      );
  }
  return first;
}

/**
 * The lookup a connection to a checked target uses: it answers the address resolveSafeAddress returned,
 * whatever form node's connect asks it in, so the connection never looks the name up a second time.
 */
export function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
}
