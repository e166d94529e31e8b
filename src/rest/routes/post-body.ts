// The post read form of the contract, from the GraphQL selection every post read uses.
import { withRestEnum } from "./conventions.ts";

export const POST_FRAGMENT = `fragment RestPost on Post {
  id slug title status featured coverImage description publishedAt scheduled updatedAt unpublishAt attribution
  content(format: $format)
  authors { id name image bio role slug socials { platform url } }
  category { id name slug description }
  tags { id name slug description }
  fields
  locale @include(if: $localized)
  availableLocales @include(if: $localized)
  alternates @include(if: $localized) { locale slug }
}`;

export function toPostBody(post: Record<string, unknown>): Record<string, unknown> {
  // `unpublishAt` only when one is scheduled: a post without one answers byte for byte as before.
  if (post.unpublishAt === null) {
    const { unpublishAt: _none, ...rest } = post;
    return withRestEnum(rest, "status");
  }
  return withRestEnum(post, "status");
}
