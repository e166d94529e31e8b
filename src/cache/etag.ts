// Strong validators shared by both doors' caches: an ETag is a hash of the answer's bytes, and a
// request holds an answer when its If-None-Match names that hash in any encoding.
import { createHash } from "node:crypto";

/** `"<base64url SHA-1 of the bytes>"`: equal bodies, equal tags; any change, a new one. */
export function strongETag(body: Buffer): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

/**
 * Whether an If-None-Match header holds this ETag, in any of its encodings (`"<hash>"`, `"<hash>-br"`,
 * `"<hash>-gzip"`: one tag per representation), weak or strong, or is `*`.
 */
export function holdsETag(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const hash = etag.slice(1, -1);
  return (
    ifNoneMatch === "*" ||
    ifNoneMatch.split(",").some((tag) => {
      const held = tag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
      return held === hash || held === `${hash}-br` || held === `${hash}-gzip`;
    })
  );
}
