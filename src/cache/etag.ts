// Strong validators shared by both doors' caches: an ETag is a hash of the answer's bytes, and a
// request holds an answer when its If-None-Match names that hash in any encoding.
//
// The hash is XXH64, not a cryptographic one: a validator has to change whenever the bytes do, not
// resist forgery (only a workspace's writers shape its bytes, and a collision would only spare a client
// one download). 64 bits make two versions of one answer collide once in 1.8e19. It is computed for every
// answer the service sends, cached or not: for a list of ten posts (52 KB) it takes about 4 µs where
// SHA-1 took 25–35 (bench/README.md, "Trims on the uncached list").
import xxhash from "xxhash-wasm";

const { h64Raw } = await xxhash();

/** `"<16 hex digits of the bytes' XXH64>"`: equal bodies, equal tags; any change, a new one. */
export function strongETag(body: Uint8Array): string {
  return `"${h64Raw(body).toString(16).padStart(16, "0")}"`;
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
