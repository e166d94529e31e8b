// The rules of a post's translations (issue 56; docs/decisions.md "Post translations"): the default
// locale's translation is the post's own row, every other locale's a PostTranslation. A write names its
// locale (`locale`; absent: the default). A translation holds the localized fields (title, slug,
// description, content, status, publishedAt): it is published, scheduled and unpublished on its own,
// and writing it changes no other translation. Shared fields (category, tags, authors, featured, cover
// image, attribution, custom field values) belong to the post, whichever locale a write names.
import { ConflictError, InvalidInputError } from "../../domain/errors.ts";
import type { UpdatePostData } from "../../domain/inputs.ts";
import type { WriteLocale } from "../locales/write-locale.ts";
import {
  changesAny,
  type FieldDefinitionForValues,
  type FieldValueChanges,
} from "../taxonomy/custom-field-values.ts";

export { localeOfWrite, type WriteLocale } from "../locales/write-locale.ts";

/** What a post write may set that is shared by all of the post's translations. */
export const SHARED_INPUTS = [
  "categoryId",
  "tags",
  "authors",
  "featured",
  "coverImage",
  "attribution",
  "fields",
] as const;

/**
 * Whether an update changes what every translation shows: a shared field, or custom field values
 * other than only localized fields' (those belong to the translation written, issue 56).
 */
export function setsSharedFields(
  input: UpdatePostData,
  values?: { shared: FieldValueChanges; localized: FieldValueChanges },
): boolean {
  if (SHARED_INPUTS.some((key) => key !== "fields" && input[key] !== undefined)) return true;
  if (input.fields === undefined) return false;
  return !values || changesAny(values.shared) || !changesAny(values.localized);
}

/**
 * A write that creates the translation in `code` must give every required localized field a value:
 * else a 400 naming them (as a post's create does for every required field).
 */
export function checkNewTranslationValues(
  definitions: readonly FieldDefinitionForValues[],
  localized: FieldValueChanges | undefined,
): void {
  const missing = definitions.filter(
    (definition) =>
      definition.localized === true && definition.required && !localized?.set.has(definition.id),
  );
  if (missing.length > 0)
    throw new InvalidInputError(
      "Invalid post: a new translation needs a value for every required localized field",
      missing.map((definition) => ({
        field: `fields.${definition.key}`,
        message: `"${definition.key}" is required`,
      })),
    );
}

/** What a translation must have when a write creates it. */
const REQUIRED_TO_CREATE = ["title", "slug", "description", "content"] as const;

/** A write that creates the translation in `code` must give its required fields: else a 400 naming them. */
export function checkNewTranslation(input: UpdatePostData, code: string): void {
  const missing = REQUIRED_TO_CREATE.filter((key) => input[key] === undefined);
  if (missing.length > 0)
    throw new InvalidInputError(
      `Invalid post: the post has no "${code}" translation yet, and creating it needs these fields`,
      missing.map((field) => ({ field, message: "Required" })),
    );
}

/** A post starts in the default locale (its own row); other translations are added by an update. */
export function refuseCreateInLocale(locale: WriteLocale | null): void {
  if (locale && !locale.isDefault)
    throw new InvalidInputError("Invalid post", [
      {
        field: "locale",
        message: `A post is created in the workspace's default locale; add its "${locale.code}" translation with an update naming that locale`,
      },
    ]);
}

/** The default locale's translation is the post itself: it goes with the post, never alone. */
export function refuseRemovingDefault(locale: WriteLocale): void {
  if (locale.isDefault)
    throw new ConflictError(
      `"${locale.code}" is the workspace's default locale: its translation is the post itself; delete the post instead`,
      "locale",
    );
}
