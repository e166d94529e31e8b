// What the writes of the domain take, as plain data. The GraphQL input types carry these shapes (the
// compiler checks it where a resolver hands its input to a content function) and the REST bodies map
// onto the GraphQL inputs; the content rules validate them (lengths, slugs, references, …).
import type { ContentFormat, FieldType, PostStatus } from "./constants.ts";

/**
 * The longest title, body and description a post may have, in characters: the API refuses longer ones
 * (400), and an import fails such a post with its reason before it reaches the database (a 50 MB body
 * held a statement past its timeout and aborted the whole import).
 */
export const POST_TEXT_LIMITS = { title: 500, content: 2_000_000, description: 5_000 } as const;

export interface CreatePostData {
  title: string;
  /** HTML, or markdown when `contentFormat` is "markdown"; stored as sanitized HTML. */
  content: string;
  contentFormat?: ContentFormat | null;
  description: string;
  slug: string;
  categoryId: string;
  status: PostStatus;
  tags?: readonly string[] | null;
  /** Defaults to the workspace's first author. */
  authors?: readonly string[] | null;
  featured?: boolean | null;
  coverImage?: string | null;
  /** Defaults to now. */
  publishedAt?: Date | null;
  /** A scheduled unpublish: in the future and after publishedAt; null (updates) clears it. */
  unpublishAt?: Date | null;
  attribution?: string | null;
  /** Custom field values keyed by field key, checked against the workspace's definitions. */
  fields?: unknown;
}

/** Only what is given changes; null is refused for what a post must have, and clears the rest. */
export type UpdatePostData = { [Key in keyof CreatePostData]?: CreatePostData[Key] | null };

/** A category or a tag (the same write rules). */
export interface TaxonomyCreate {
  name: string;
  slug: string;
  description?: string | null;
}

export interface TaxonomyUpdate {
  name?: string | null;
  slug?: string | null;
  description?: string | null;
}

export interface Social {
  /** One of SOCIAL_PLATFORMS (checked by the author rules). */
  platform: string;
  url: string;
}

/** An author's fields; a create needs `name` and `slug`. */
export interface AuthorWrite {
  name?: string | null;
  slug?: string | null;
  bio?: string | null;
  role?: string | null;
  email?: string | null;
  image?: string | null;
  socials?: readonly Social[] | null;
}

export interface FieldOptionInput {
  value: string;
  label: string;
}

/** A custom field definition's fields; a create needs `key`, `name` and `type`. */
export interface FieldWrite {
  key?: string | null;
  name?: string | null;
  description?: string | null;
  type?: FieldType | null;
  required?: boolean | null;
  /** Values per translation (issue 56); default false. */
  localized?: boolean | null;
  position?: number | null;
  options?: readonly FieldOptionInput[] | null;
}

export interface MediaUpload {
  bytes: Uint8Array;
  filename: string;
  /** Defaults to the file name. */
  name?: string | null;
  alt?: string | null;
}

export interface MediaUpdate {
  name?: string | null;
  alt?: string | null;
}

/** A webhook endpoint's fields; a create needs `url` and `events` (event types, or ["*"] for all). */
export interface WebhookEndpointWrite {
  url?: string | null;
  events?: readonly string[] | null;
  description?: string | null;
  enabled?: boolean | null;
}
