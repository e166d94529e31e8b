// The post read form of the contract, from the GraphQL selection every post read uses.
import { withRestEnum } from "./conventions.ts";

export const POST_FRAGMENT = `fragment RestPost on Post {
  id slug title status featured coverImage description publishedAt scheduled updatedAt unpublishAt attribution
  content(format: $format)
  authors { id name image bio role slug socials { platform url } }
  category { id name slug description }
  tags { id name slug description }
  fields
  locale
  availableLocales
  alternates { locale slug }
}`;

/**
 * Keys a post shows only when they hold something: `unpublishAt` when one is scheduled; the locale facts
 * when read with `locale` or in a workspace of several locales (GraphQL's are null otherwise). A post
 * of a one-locale workspace without either answers byte for byte as before (issue 56).
 */
const SHOWN_WHEN_SET: ReadonlySet<string> = new Set([
  "unpublishAt",
  "locale",
  "availableLocales",
  "alternates",
]);

export function toPostBody(post: Record<string, unknown>): Record<string, unknown> {
  // A new object with the keys it keeps, in order, rather than a copy with keys deleted: an object that
  // lost keys turns into a slow dictionary, which JSON.stringify then walks for every post of every page.
  const shown: Record<string, unknown> = {};
  for (const key in post) {
    const value = post[key];
    if (value !== null || !SHOWN_WHEN_SET.has(key)) shown[key] = value;
  }
  return withRestEnum(shown, "status");
}
