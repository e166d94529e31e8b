// Response schemas of the contract's resources (zod), used for the OpenAPI document and by the tests
// that check every real response against it. Read forms follow the contract's resource tables.
import { z } from "zod";
import { EVENT_TYPES } from "../domain/event-types.ts";

const dateTime = z.string().datetime({ offset: true });
const nullableString = z.string().nullable();

export const PaginationShape = z.object({
  limit: z.number().int().positive(),
  currentPage: z.number().int().positive(),
  nextPage: z.number().int().nullable(),
  previousPage: z.number().int().nullable(),
  totalPages: z.number().int(),
  totalItems: z.number().int(),
});

export const SocialShape = z.object({ platform: z.string(), url: z.string().url() });

export const AuthorRefShape = z.object({
  id: z.string(),
  name: z.string(),
  image: nullableString,
  bio: nullableString,
  role: nullableString,
  slug: z.string(),
  socials: z.array(SocialShape),
});

export const AuthorShape = AuthorRefShape.extend({
  count: z.object({ posts: z.number().int() }),
  locale: z
    .string()
    .optional()
    .describe("The locale whose name and bio were served (read with `locale` only)"),
});

export const TaxonomyRefShape = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: nullableString,
});

/** A read with `locale` (issue 56) also says which locale served the name; one without answers as before. */
const servedLocale = z
  .string()
  .optional()
  .describe("The locale whose name and description were served (read with `locale` only)");

export const TaxonomyShape = TaxonomyRefShape.extend({
  count: z.object({ posts: z.number().int() }),
  locale: servedLocale,
});

export const FieldValueShape = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);

export const PostShape = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  status: z.enum(["published", "draft"]),
  featured: z.boolean(),
  coverImage: nullableString,
  description: z.string(),
  publishedAt: dateTime,
  scheduled: z
    .boolean()
    .describe("Published with a publishedAt still ahead: public from then on (until then private keys only)"),
  updatedAt: dateTime,
  unpublishAt: dateTime
    .optional()
    .describe(
      "When the post (or the translation served) goes back to draft: present only while one is scheduled, public to nobody from then on",
    ),
  authors: z.array(AuthorRefShape),
  category: TaxonomyRefShape,
  tags: z.array(TaxonomyRefShape),
  fields: z.record(z.string(), FieldValueShape),
  content: z.string(),
  attribution: nullableString,
  // On a post read with `locale`, or in a workspace of several locales (issue 56); a one-locale workspace's
  // read without `locale` answers as before.
  locale: z
    .string()
    .optional()
    .describe(
      "The locale of the translation served (read with `locale`, or in a workspace of several locales: then the default's)",
    ),
  availableLocales: z
    .array(z.string())
    .optional()
    .describe(
      "The locales the post has a translation in; published ones only for a public key (read with `locale`, or in a workspace of several locales)",
    ),
  alternates: z
    .array(z.object({ locale: z.string(), slug: z.string() }))
    .optional()
    .describe(
      "Each translation's locale and slug, for hreflang links; published ones only for a public key (read with `locale`, or in a workspace of several locales)",
    ),
});

export const PostSummaryShape = z.object({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  description: z.string(),
  coverImage: nullableString,
  publishedAt: dateTime,
});

export const PostWriteResultShape = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  status: z.enum(["published", "draft"]),
  featured: z.boolean(),
  publishedAt: dateTime,
});

export const MediaShape = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().url(),
  alt: nullableString,
  size: z.number().int(),
  mimeType: nullableString,
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration: z.number().int().nullable(),
  blurHash: nullableString,
  type: z.enum(["image", "video", "audio", "document"]),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const FieldOptionShape = z.object({
  id: z.string(),
  value: z.string(),
  label: z.string(),
  position: z.number().int(),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const FieldShape = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  description: nullableString,
  type: z.enum(["text", "number", "boolean", "date", "richtext", "select", "multiselect"]),
  required: z.boolean(),
  /** Present (true) only on a localized field: values per translation. */
  localized: z.literal(true).optional(),
  position: z.number().int(),
  options: z.array(FieldOptionShape),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const DeleteResultShape = z.object({ id: z.string() });

export const EventShape = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  workspaceId: z.string(),
  resourceId: z.string(),
  slug: nullableString,
  locales: z
    .array(z.string())
    .optional()
    .describe(
      "Posts: the locales the event concerns — the translation written, or all of the post's for a change of shared fields or its removal",
    ),
  data: z.record(z.string(), z.unknown()),
  createdAt: dateTime,
});

export const LocaleShape = z.object({
  id: z.string(),
  code: z.string().describe("Canonical BCP 47 (en-US)"),
  name: z.string(),
  isDefault: z.boolean().describe("The locale served when none is asked for; exactly one per workspace"),
  fallback: z.array(z.string()).describe("The locales to fall back to, in order"),
  createdAt: dateTime,
  updatedAt: dateTime,
});
