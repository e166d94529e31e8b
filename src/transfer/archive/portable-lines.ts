// The NDJSON lines of the portable format (format.ts), checked on import: an archive is input like any
// other, so a malformed line is refused with its entry and line number instead of reaching the writer.
import { z } from "zod";
import type { ImportKind } from "../../content/import/import-records.ts";

const timestamps = { createdAt: z.string().optional(), updatedAt: z.string().optional() };
const nullableText = z.string().nullable();

const taxonomyLine = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: nullableText,
  /** Format version 2: the name and description in the workspace's other locales. */
  translations: z
    .array(z.object({ locale: z.string(), name: z.string(), description: nullableText }))
    .optional(),
  ...timestamps,
});

/** Format version 2: a post's version in another locale (import-records.ts, ImportedTranslation). */
const translationLine = z.object({
  locale: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  content: z.string(),
  status: z.enum(["published", "draft"]),
  publishedAt: z.string(),
  /** Its scheduled unpublish (null or absent: none). */
  unpublishAt: z.string().nullable().optional(),
  ...timestamps,
  /** Its values of localized custom fields, by key (absent: none). */
  fields: z.record(z.string(), z.unknown()).optional(),
});

export const lineSchemas = {
  /** Format version 2. */
  locale: z.object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    isDefault: z.boolean(),
    fallback: z.array(z.string()),
    ...timestamps,
  }),
  category: taxonomyLine,
  tag: taxonomyLine,
  author: z.object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    image: nullableText,
    bio: nullableText,
    role: nullableText,
    email: nullableText,
    socials: z.array(z.object({ platform: z.string(), url: z.string() })),
    /** Format version 2: the name and bio in the workspace's other locales. */
    translations: z.array(z.object({ locale: z.string(), name: z.string(), bio: nullableText })).optional(),
    ...timestamps,
  }),
  field: z.object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    description: nullableText,
    type: z.enum(["text", "number", "boolean", "date", "richtext", "select", "multiselect"]),
    required: z.boolean(),
    /** Whether its values are per translation (absent: as the workspace's field of that key has it, else not). */
    localized: z.boolean().optional(),
    position: z.number().int(),
    options: z.array(
      z.object({ value: z.string(), label: z.string(), position: z.number().int(), ...timestamps }),
    ),
    ...timestamps,
  }),
  media: z.object({
    id: z.string(),
    file: z.string(),
    url: z.string(),
    name: z.string(),
    alt: nullableText,
    size: z.number().int(),
    ...timestamps,
  }),
  post: z.object({
    id: z.string(),
    /** Format version 2: the locale of the post's own fields (version 1: the workspace's default). */
    locale: z.string().optional(),
    slug: z.string(),
    title: z.string(),
    status: z.enum(["published", "draft"]),
    featured: z.boolean(),
    coverImage: nullableText,
    description: z.string(),
    content: z.string(),
    attribution: nullableText,
    publishedAt: z.string(),
    /** The post's scheduled unpublish (null or absent: none). */
    unpublishAt: z.string().nullable().optional(),
    category: z.string(),
    tags: z.array(z.string()),
    authors: z.array(z.string()),
    fields: z.record(z.string(), z.unknown()),
    revisions: z.array(
      z.object({
        number: z.number().int(),
        /** The locale of the translation it is of (absent: the post's own, `locale`). */
        locale: z.string().nullable().optional(),
        createdAt: z.string(),
        actorName: nullableText,
        snapshot: z.record(z.string(), z.unknown()),
      }),
    ),
    /** Format version 2: the post in the workspace's other locales. */
    translations: z.array(translationLine).optional(),
    ...timestamps,
  }),
  webhook: z.object({
    id: z.string(),
    url: z.string(),
    description: nullableText,
    events: z.array(z.string()),
    enabled: z.boolean(),
    ...timestamps,
  }),
} satisfies Record<ImportKind, z.ZodType>;

export type PortableLine<K extends ImportKind> = z.infer<(typeof lineSchemas)[K]>;
