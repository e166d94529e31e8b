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
const SHOWN_WHEN_SET = ["unpublishAt", "locale", "availableLocales", "alternates"] as const;

export function toPostBody(post: Record<string, unknown>): Record<string, unknown> {
  if (SHOWN_WHEN_SET.every((key) => post[key] !== null)) return withRestEnum(post, "status");
  const shown = { ...post };
  for (const key of SHOWN_WHEN_SET) if (shown[key] === null) delete shown[key];
  return withRestEnum(shown, "status");
}
