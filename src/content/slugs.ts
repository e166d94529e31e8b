// Slugs: the contract leaves their format open. We accept what Ghost, Strapi and Marble produce:
// lowercase letters, digits, and single hyphens or underscores between them.
export const SLUG_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 200;

export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    // Combining marks go (é → e), and so do invisible format characters (zero-width joiners, bidi
    // controls): "uncat\u200begorized" is "uncategorized", not "uncat-egorized".
    .replace(/[\u0300-\u036f]|\p{Cf}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/g, "");
  return slug || "untitled";
}

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}
