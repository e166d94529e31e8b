// The record stream every import consumes (src/transfer): the portable archive's reader and each
// source's converter (Ghost, WordPress, markdown, a /v1 API) turn what they read into these records, so
// all of them share one import path and one batch writer (import-batch.ts). References between records
// are by slug (a field by its key), which an import keeps; `sourceId` is the record's identity in its
// source, what the import ledger (ImportedRecord) remembers it by.

import type { Readable } from "node:stream";

export interface ImportedTaxonomy {
  kind: "category" | "tag";
  sourceId: string;
  slug: string;
  name: string;
  description: string | null;
  createdAt?: string;
  updatedAt?: string;
  /** Format version 2 (issue 56): the name and description in other locales; absent: left as they are. */
  translations?: { locale: string; name: string; description: string | null }[];
}

export interface ImportedAuthor {
  kind: "author";
  sourceId: string;
  slug: string;
  name: string;
  image: string | null;
  bio: string | null;
  role: string | null;
  email: string | null;
  socials: { platform: string; url: string }[];
  createdAt?: string;
  updatedAt?: string;
  /** Format version 2 (issue 56): the name and bio in other locales; absent: left as they are. */
  translations?: { locale: string; name: string; bio: string | null }[];
}

export interface ImportedField {
  kind: "field";
  sourceId: string;
  key: string;
  name: string;
  description: string | null;
  type: "text" | "number" | "boolean" | "date" | "richtext" | "select" | "multiselect";
  required: boolean;
  /**
   * Whether its values are per translation (issue 56). Absent: a field the workspace has keeps its
   * setting, a new one is not localized.
   */
  localized?: boolean;
  position: number;
  options: { value: string; label: string; position: number; createdAt?: string; updatedAt?: string }[];
  createdAt?: string;
  updatedAt?: string;
}

export interface ImportedMedia {
  kind: "media";
  sourceId: string;
  /** Where the source served it: every occurrence in bodies, covers and images is rewritten to the new URL. */
  url: string;
  name: string;
  alt: string | null;
  /** Size in bytes when the source says (an archive always does; a URL until fetched may not). */
  size: number | null;
  createdAt?: string;
  updatedAt?: string;
  /**
   * The bytes, read from the source (an archive). Absent (nor `open`): the bytes are at `url`, fetched by
   * the import within its rules and limits (src/transfer/remote-fetch.ts), never by the source.
   */
  load?(): Promise<Uint8Array>;
  /**
   * The bytes as a stream, where the source has them as one (an archive's entry): what an import reads
   * instead of `load`, so a media file is never one buffer in memory. Read once, wholly, before the next
   * record is asked for; a stream not opened is skipped by the source.
   */
  open?(): Readable;
}

export interface ImportedRevision {
  number: number;
  /**
   * The locale of the translation the revision is of (issue 56). Absent or null: the post's own locale
   * (ImportedPost.locale, else the workspace's default).
   */
  locale?: string | null;
  createdAt: string;
  actorName: string | null;
  /** The post's read form after that write (post-revisions.ts); ids inside are the source's. */
  snapshot: Record<string, unknown>;
}

/**
 * A workspace locale (issue 56): created when the workspace lacks its code, else the workspace's is
 * given the name and chain the record has (import-locales.ts). A chain names locales that come before it
 * in the stream. Absent name, chain or default (a markdown folder knows only the code): the workspace's
 * as it is, or a new locale's defaults.
 */
export interface ImportedLocale {
  kind: "locale";
  sourceId: string;
  /** BCP 47; canonicalised on import. */
  code: string;
  name?: string;
  isDefault?: boolean;
  fallback?: string[];
  createdAt?: string;
  updatedAt?: string;
}

/** A post in one more locale: the localized fields, with a status and dates of its own. */
export interface ImportedTranslation {
  locale: string;
  slug: string;
  title: string;
  description: string;
  /** HTML: sanitized on import. */
  content: string;
  status: "published" | "draft";
  publishedAt: string;
  /** Its scheduled unpublish; null: none; absent: none for a new translation, else left as it is. */
  unpublishAt?: string | null;
  createdAt?: string;
  updatedAt?: string;
  /** Its values of localized custom fields, by key (a shared field's value is the post's). */
  fields?: Record<string, unknown>;
}

export interface ImportedPost {
  kind: "post";
  sourceId: string;
  /**
   * The locale of the post's own localized fields (slug … publishedAt). Absent: the workspace's default
   * (format version 1, and sources without languages). Whichever of these and `translations` is in the
   * workspace's default locale becomes the post's own row; the others its translations.
   */
  locale?: string;
  slug: string;
  title: string;
  status: "published" | "draft";
  featured: boolean;
  coverImage: string | null;
  description: string;
  /** HTML: sanitized on import like every body the API accepts. */
  content: string;
  attribution: string | null;
  publishedAt: string;
  /** A scheduled unpublish; null: none; absent: none for a new post, an existing post's left as it is. */
  unpublishAt?: string | null;
  createdAt?: string;
  updatedAt?: string;
  /** Slugs. */
  category: string;
  tags: string[];
  authors: string[];
  /** Values by field key. */
  fields: Record<string, unknown>;
  /** Oldest first; none: the import makes the post's first revision, as a create would. */
  revisions: ImportedRevision[];
  /** The post in other locales (none: only the one of its own fields). */
  translations?: ImportedTranslation[];
}

export interface ImportedWebhook {
  kind: "webhook";
  sourceId: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  createdAt?: string;
  updatedAt?: string;
}

export type ImportRecord =
  | ImportedLocale
  | ImportedTaxonomy
  | ImportedAuthor
  | ImportedField
  | ImportedMedia
  | ImportedPost
  | ImportedWebhook;

export type ImportKind = ImportRecord["kind"];

/**
 * A record the source has but could not convert (front matter that is not data, a value of the wrong
 * type, a duplicate id): reported as failed with `reason`, never written, and the import goes on.
 */
export interface RejectedRecord {
  kind: ImportKind;
  sourceId: string;
  /** How the summary names it (a slug, a file, an id). */
  label: string;
  rejected: string;
}

/**
 * Something the source holds that this service has no place for (a WordPress page or menu item, a Ghost
 * page, a Hugo section page): never written, counted in the summary under `leftOut` (its reason), so
 * nothing the source holds goes unmentioned. Not a failure.
 */
export interface LeftOutRecord {
  kind: ImportKind;
  sourceId: string;
  label: string;
  /** What it is, as the summary counts it: "WordPress pages", "Ghost pages". */
  leftOut: string;
}

/** What a source's stream gives: records to write, those it refused to convert, those it leaves out. */
export type SourceRecord = ImportRecord | RejectedRecord | LeftOutRecord;

export const isRejected = (record: SourceRecord): record is RejectedRecord => "rejected" in record;
export const isLeftOut = (record: SourceRecord): record is LeftOutRecord => "leftOut" in record;

/**
 * The order records must be imported in: what a record references before it, so its ids and media URLs
 * can be rewritten: locales first (a post's translations name them); media before the authors whose images and the posts whose covers and bodies show
 * them; taxonomy, authors and fields before the posts. Streams list their records in this order.
 */
export const IMPORT_ORDER: readonly ImportKind[] = [
  "locale",
  "category",
  "tag",
  "media",
  "author",
  "field",
  "post",
  "webhook",
];

/** What the import did with one record. */
export type ImportOutcome = "created" | "updated" | "skipped" | "conflict" | "failed";
