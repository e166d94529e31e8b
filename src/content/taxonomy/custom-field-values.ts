// A post's custom field values: validated against the workspace's definitions on write, and read back
// as an object that has every defined key (null where unset), values in their own JSON type.
import { echoInput } from "../../domain/echo-input.ts";
import type { FieldProblem } from "../../domain/errors.ts";
import type { FieldType } from "../../generated/prisma/client.ts";
import { sanitizeHtml } from "../sanitize-html.ts";

export interface FieldDefinitionForValues {
  id: string;
  key: string;
  type: FieldType;
  required?: boolean;
  /** Values per translation (issue 56): absent or false, one value shared by all. */
  localized?: boolean;
  options?: { value: string }[];
}

export type StoredFieldValue = string | number | boolean | string[];

export function fieldValuesObject(
  definitions: readonly FieldDefinitionForValues[],
  stored: readonly { fieldId: string; value: unknown }[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (stored.length > 16) {
    const byField = new Map(stored.map((row) => [row.fieldId, row.value]));
    for (const definition of definitions) out[definition.key] = byField.get(definition.id) ?? null;
    return out;
  }
  // Every post of a list page runs this: a scan of its few values per key, no Map built per post.
  for (const definition of definitions) {
    let value: unknown = null;
    for (const row of stored) {
      if (row.fieldId === definition.id) {
        value = row.value ?? null;
        break;
      }
    }
    out[definition.key] = value;
  }
  return out;
}

export interface FieldValueChanges {
  /** Values to store, by field id. */
  set: Map<string, StoredFieldValue>;
  /** Field ids whose value is cleared. */
  clear: string[];
  problems: FieldProblem[];
}

/**
 * Checks `input` (the `fields` object of a post write) against the definitions. On create every
 * required field must have a value; on update only the given keys change.
 */
export function validateFieldValues(
  definitions: readonly FieldDefinitionForValues[],
  input: unknown,
  mode: "create" | "update",
): FieldValueChanges {
  const changes: FieldValueChanges = { set: new Map(), clear: [], problems: [] };
  if (input === undefined || input === null) input = {};
  if (typeof input !== "object" || Array.isArray(input)) {
    changes.problems.push({ field: "fields", message: "Must be an object keyed by field key" });
    return changes;
  }
  const given = input as Record<string, unknown>;
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  for (const key of Object.keys(given)) {
    if (!byKey.has(key))
      changes.problems.push({
        field: `fields.${echoInput(key)}`,
        message: `Unknown custom field "${echoInput(key)}"`,
      });
  }
  for (const definition of definitions) {
    const path = `fields.${definition.key}`;
    const present = Object.hasOwn(given, definition.key);
    const value = given[definition.key];
    if (!present || value === null) {
      if (definition.required && (mode === "create" || present)) {
        changes.problems.push({ field: path, message: `"${definition.key}" is required` });
      } else if (present) changes.clear.push(definition.id);
      continue;
    }
    const checked = checkValue(definition, value);
    if (typeof checked === "object" && checked !== null && "problem" in checked) {
      changes.problems.push({ field: path, message: checked.problem });
    } else changes.set.set(definition.id, checked as StoredFieldValue);
  }
  return changes;
}

/**
 * The changes of a write in a locale other than the default, split: the shared fields' go to the post
 * (PostFieldValue), the localized fields' to the translation (PostTranslationFieldValue).
 */
export function splitFieldValues(
  definitions: readonly FieldDefinitionForValues[],
  changes: FieldValueChanges,
): { shared: FieldValueChanges; localized: FieldValueChanges } {
  const localizedIds = new Set(definitions.filter((d) => d.localized === true).map((d) => d.id));
  const part = (wanted: boolean): FieldValueChanges => ({
    set: new Map([...changes.set].filter(([id]) => localizedIds.has(id) === wanted)),
    clear: changes.clear.filter((id) => localizedIds.has(id) === wanted),
    problems: [],
  });
  return { shared: part(false), localized: part(true) };
}

/** Whether the changes set or clear anything. */
export function changesAny(changes: FieldValueChanges | undefined): boolean {
  return changes !== undefined && (changes.set.size > 0 || changes.clear.length > 0);
}

type Checked = StoredFieldValue | { problem: string };

function checkValue(definition: FieldDefinitionForValues, value: unknown): Checked {
  switch (definition.type) {
    case "text":
      return typeof value === "string" ? value : { problem: "Must be a string" };
    case "richtext":
      return typeof value === "string" ? sanitizeHtml(value) : { problem: "Must be a string of HTML" };
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? value
        : { problem: "Must be a finite number" };
    case "boolean":
      return typeof value === "boolean" ? value : { problem: "Must be true or false" };
    case "date":
      return typeof value === "string" && isIsoDate(value)
        ? value
        : { problem: "Must be an ISO 8601 date (YYYY-MM-DD) or date-time" };
    case "select": {
      const allowed = optionValues(definition);
      if (typeof value !== "string" || !allowed.includes(value)) {
        return { problem: `Must be one of: ${allowed.join(", ")}` };
      }
      return value;
    }
    case "multiselect": {
      const allowed = optionValues(definition);
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
        return { problem: "Must be an array of option values" };
      }
      const unknown = value.filter((v) => !allowed.includes(v as string));
      if (unknown.length) return { problem: `Not options of this field: ${unknown.join(", ")}` };
      if (new Set(value).size !== value.length) return { problem: "Must not contain duplicates" };
      return value as string[];
    }
  }
}

function optionValues(definition: FieldDefinitionForValues): string[] {
  return (definition.options ?? []).map((option) => option.value);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  // The calendar date as written must exist: JavaScript silently rolls 2024-02-31 over to March 2,
  // also inside a date-time, so the day is checked against its month before the whole is parsed.
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0-99 as 19xx
  if (
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day
  )
    return false;
  // Then the time of day (hours, minutes, offset) must be one JavaScript accepts.
  return match[4] === undefined || !Number.isNaN(new Date(value).getTime());
}
