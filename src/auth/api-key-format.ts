// API keys: 192 random bits, a prefix that tells the kind at a glance, stored only as a SHA-256 hash.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export type ApiKeyKind = "public" | "private";

/** `pk_` keys are safe to embed in websites (read-only); `sk_` keys can write and must stay secret. */
export const API_KEY_PREFIX: Record<ApiKeyKind, string> = { public: "pk_", private: "sk_" };

export function generateApiKey(kind: ApiKeyKind): string {
  return API_KEY_PREFIX[kind] + randomBytes(24).toString("base64url");
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
