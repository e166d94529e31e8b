// Slugs: the contract leaves their format open. We accept what Ghost, Strapi and Marble produce:
// lowercase letters, digits, and single hyphens or underscores between them.
//
// Made from text (a title, a name, another system's slug), letters of every script are transliterated
// to ASCII (é → e, straße → strasse, Ελλάδα → ellada, Привет → privet, 東京 → dong-jing) with the
// `transliteration` library, as the slugs stay ASCII in URLs and the API's validation. WordPress writes
// a non-ASCII slug percent-encoded (`caf%c3%a9`): it is decoded first, so it reads as the word it is,
// not as its bytes. Text of which nothing is left (emoji, symbols only) gets the slug of its code points
// (`💫` → `u-1f4ab`): never empty, and two such texts never share one.
import { transliterate } from "transliteration";

export const SLUG_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 200;

export function slugify(text: string): string {
  const decoded = percentDecoded(text);
  return asciiSlug(decoded) || codePointSlug(decoded) || "untitled";
}

function asciiSlug(text: string): string {
  return transliterate(
    text
      .normalize("NFKD")
      // Combining marks go (é → e), and so do invisible format characters (zero-width joiners, bidi
      // controls): "uncat\u200begorized" is "uncategorized", not "uncat-egorized".
      .replace(/[\u0300-\u036f]|\p{Cf}/gu, ""),
  )
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/g, "");
}

/** `u-` and the text's code points in hex (visible ones only), or "" for blank text. */
function codePointSlug(text: string): string {
  const points = [...text.replace(/\p{Cf}|\s/gu, "")].map((char) => char.codePointAt(0)?.toString(16));
  return points.length ? `u-${points.join("-")}`.slice(0, SLUG_MAX_LENGTH).replace(/-+$/g, "") : "";
}

/** Text with its percent-encoded UTF-8 decoded, when it holds some that decodes; else the text. */
function percentDecoded(text: string): string {
  if (!/%[0-9a-f]{2}/i.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}
