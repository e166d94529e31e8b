// How the read model's relations travel from PostgreSQL: each related row (an author, a tag, a category,
// a field value) as an array of text in a fixed order of columns, a post's list of them as a json array
// of such arrays (`array_to_json(ARRAY(SELECT ARRAY[...] ...))`), decoded here by position.
//
// Why not json objects: json_build_object writes every key of every row and resolves the type of each
// value on each call; an array of text is built by one array constructor and written by array_to_json.
// For the list routes this cut PostgreSQL's CPU per statement by a fifth (a page of 100: 3.4 → 2.8 ms,
// `npm run bench:statement-cpu`), the cost PostGraphile keeps low with text arrays (issue 39). The
// arrays are still json, so the driver parses them with JSON.parse, in native code.
import type { RelationColumns } from "./relation-columns.ts";

/** How a column is written into its text slot, and read back. */
type ColumnKind =
  /** Text as stored (text columns, and null). */
  | "text"
  /** A json column, written as its text, parsed back. */
  | "json"
  /** A timestamp(3), written as whole milliseconds since the epoch, read back as a Date. */
  | "epochMs";

interface LayoutColumn {
  name: string;
  kind: ColumnKind;
}

/** The columns of one kind of related row, in the order its arrays hold them. */
export type RelationLayout = readonly LayoutColumn[];

const text = (name: string): LayoutColumn => ({ name, kind: "text" });
const json = (name: string): LayoutColumn => ({ name, kind: "json" });
const epochMs = (name: string): LayoutColumn => ({ name, kind: "epochMs" });

/** Columns the read form never shows: loaded only when a selection asks for them (relation-columns.ts). */
const TIMESTAMPS = [epochMs("createdAt"), epochMs("updatedAt")];
const NAMES = [text("id"), text("name"), text("slug")];
const TAXONOMY_SHOWN = [...NAMES, text("description")];
const TAXONOMY_ALL = [...TAXONOMY_SHOWN, text("workspaceId"), ...TIMESTAMPS];
const AUTHOR_SHOWN = [...NAMES, text("image"), text("bio"), text("role"), json("socials")];
const AUTHOR_ALL = [...AUTHOR_SHOWN, text("workspaceId"), text("email"), ...TIMESTAMPS];

/** A category's or a tag's columns. */
export const taxonomyLayout = (columns: RelationColumns): RelationLayout =>
  columns === "all" ? TAXONOMY_ALL : columns === "shown" ? TAXONOMY_SHOWN : NAMES;

/** An author's columns. */
export const authorLayout = (columns: RelationColumns): RelationLayout =>
  columns === "all" ? AUTHOR_ALL : columns === "shown" ? AUTHOR_SHOWN : NAMES;

/** A post's value of one custom field. */
export const FIELD_VALUE_LAYOUT: RelationLayout = [text("fieldId"), json("value")];

/** The SQL of one related row `alias` as a text[] in the layout's order. */
export function rowArraySql(layout: RelationLayout, alias: string): string {
  return `ARRAY[${layout.map((column) => slotSql(column, alias)).join(", ")}]`;
}

/** One column of a related row as its text slot. */
function slotSql({ name, kind }: LayoutColumn, alias: string): string {
  const column = `${alias}."${name}"`;
  if (kind === "epochMs") return `(date_part('epoch', ${column}) * 1000)::int8::text`;
  return kind === "json" ? `${column}::text` : column;
}

/**
 * rowArraySql of a record read in a locale (issue 56), beside its translation `translation` (a row of
 * the kind's translation table, or nulls): the translation's name and `text` (description or bio, null
 * there when the translation has none) in place of the record's own when there is one, and one slot
 * more at the end, the translation's locale (null: the record's own names).
 */
export function localizedRowArraySql(
  layout: RelationLayout,
  alias: string,
  translation: string,
  text: "description" | "bio",
): string {
  const slots = layout.map((column) => {
    if (column.name === "name") return `coalesce(${translation}.name, ${alias}.name)`;
    if (column.name === text)
      return `CASE WHEN ${translation}.locale IS NULL THEN ${alias}."${text}" ELSE ${translation}."${text}" END`;
    return slotSql(column, alias);
  });
  return `ARRAY[${slots.join(", ")}, ${translation}.locale]`;
}

/** One related row back from its array: an object with the layout's names, its values typed again. */
export function decodeRow(
  layout: RelationLayout,
  values: readonly (string | null)[],
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let index = 0; index < layout.length; index++) {
    const { name, kind } = layout[index] as LayoutColumn;
    const value = values[index] ?? null;
    if (value === null || kind === "text") row[name] = value;
    else row[name] = kind === "json" ? JSON.parse(value) : new Date(Number(value));
  }
  return row;
}
