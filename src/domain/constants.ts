// The fixed value sets of the domain. The GraphQL enums and the REST schemas spell the same sets; the
// content rules check input against these.

export const POST_STATUSES = ["published", "draft"] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** How a post's body is written by the client; it is always stored as sanitized HTML. */
export const CONTENT_FORMATS = ["html", "markdown"] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

/** The platforms an author's socials may name. */
export const SOCIAL_PLATFORMS = [
  "x",
  "twitter",
  "github",
  "facebook",
  "instagram",
  "youtube",
  "tiktok",
  "linkedin",
  "website",
  "onlyfans",
  "discord",
  "bluesky",
] as const;

/** The types of a custom field (the same set as the database's FieldType enum). */
export const FIELD_TYPES = [
  "text",
  "number",
  "boolean",
  "date",
  "richtext",
  "select",
  "multiselect",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * The longest full-text search text, in characters: both doors refuse longer ones (REST's `query`
 * parameter, whose OpenAPI schema states it; GraphQL's `query` arguments). Fixed, so the REST
 * document can say it; the number of words is a setting (SEARCH_MAX_TERMS).
 */
export const SEARCH_MAX_LENGTH = 500;
