// API keys: a prefix that tells the kind at a glance, 178 random bits and a checksum, stored only as a
// SHA-256 hash. The format (docs/api-keys.md) follows GitHub's tokens: `pk_` or `sk_`, 30 base62
// characters, then the CRC32 of everything before it in 6 base62 characters. Secret scanners match it
// by its regular expression, and a mistyped or made-up key is refused without a database lookup.
// Keys issued before the checksum (`pk_`/`sk_` + 32 base64url characters) keep working.
import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

export type ApiKeyKind = "public" | "private";

/** `pk_` keys are safe to embed in websites (read-only); `sk_` keys can write and must stay secret. */
export const API_KEY_PREFIX: Record<ApiKeyKind, string> = { public: "pk_", private: "sk_" };

/** A key of today's format, for documentation and secret scanners. */
export const API_KEY_PATTERN = /^(pk|sk)_[0-9A-Za-z]{36}$/;
/** Keys issued before the checksum existed (still accepted; nothing checks them before the lookup). */
const LEGACY_KEY_PATTERN = /^(pk|sk)_[A-Za-z0-9_-]{32}$/;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;

export function generateApiKey(kind: ApiKeyKind): string {
  let body = API_KEY_PREFIX[kind];
  for (let i = 0; i < RANDOM_LENGTH; i++) body += BASE62[randomInt(BASE62.length)];
  return body + checksumOf(body);
}

/** CRC32 of the prefix and random part, in 6 base62 digits (62^6 > 2^32). */
function checksumOf(body: string): string {
  let value = crc32(body);
  let digits = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/**
 * Whether a presented string can be one of our keys at all: today's format with a checksum that
 * matches, or the format before it. Anything else is a typo or made up, refused without a lookup.
 */
export function isWellFormedKey(presented: string): boolean {
  if (API_KEY_PATTERN.test(presented)) {
    const split = presented.length - CHECKSUM_LENGTH;
    return checksumOf(presented.slice(0, split)) === presented.slice(split);
  }
  return LEGACY_KEY_PATTERN.test(presented);
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** What listings show of a key: its prefix and the first few random characters. */
export function displayHintOf(key: string): string {
  return `${key.slice(0, 9)}…`;
}

/** The kind a key claims by its prefix, or null for something that is not one of our keys. */
export function kindOfKey(key: string): ApiKeyKind | null {
  if (key.startsWith(API_KEY_PREFIX.public)) return "public";
  if (key.startsWith(API_KEY_PREFIX.private)) return "private";
  return null;
}

/** Constant-time comparison of two hex digests of equal length. */
export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Accepts both `Authorization: <key>` and `Authorization: Bearer <key>`. */
export function keyFromAuthorizationHeader(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim();
  const match = /^Bearer\s+(.+)$/i.exec(value);
  const key = (match ? match[1] : value)?.trim();
  return key ? key : null;
}
